// The network layer's own parts, shared by its files (and by nothing else:
// it includes Beast, which is slow to compile): the connection caps, the open
// sessions and connections, and the context every connection serves with.
#pragma once

#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/beast/websocket.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/community/community.h"
#include "server/image/game_pictures.h"
#include "server/net/routes.h"
#include "server/net/static_files.h"
#include "server/push/webpush.h"
#include "server/records/game_records.h"
#include "server/tables/hub.h"

namespace makruk::server::net_detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;


constexpr size_t MAX_BODY = 16 * 1024;
constexpr size_t MAX_WS_MESSAGE = 4096;
constexpr size_t MAX_QUEUED = 512;                 // messages; a client this far behind is dropped
constexpr size_t MAX_QUEUED_BYTES = 4 * 1024 * 1024;  // the same, in bytes
using Clock = std::chrono::steady_clock;
constexpr int DEFLATE_WINDOW_BITS = 12;  // permessage-deflate's window: 4 KiB
constexpr auto CLOSE_GRACE = std::chrono::seconds(2);  // to take what was queued before a close
constexpr int MAX_AT_HUB = 100;  // a client's messages read but not yet handled by the hub
constexpr auto REQUEST_TIMEOUT = std::chrono::seconds(30);

// The browser-facing security headers. The client is one origin: its scripts,
// styles, pictures and sockets all come from the server itself ('wasm-unsafe-eval'
// lets its own WebAssembly, the rules core and the engine, be compiled).
constexpr const char* CSP =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// Open connections, overall and per address.
class ConnectionGate {
 public:
  ConnectionGate(int max_total, int max_per_ip) : max_total_(max_total), max_per_ip_(max_per_ip) {}

  // A ticket frees its place when it goes.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(ConnectionGate* gate, std::string key) : gate_(gate), key_(std::move(key)) {}
    Ticket(Ticket&& o) noexcept : gate_(std::exchange(o.gate_, nullptr)), key_(std::move(o.key_)) {}
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket() {
      if (gate_) gate_->release(key_);
    }
    explicit operator bool() const { return gate_ != nullptr; }

   private:
    ConnectionGate* gate_ = nullptr;
    std::string key_;
  };

  // Connections open now.
  int open() const {
    std::lock_guard lock(mutex_);
    return total_;
  }

  // A place for a connection from `key` (empty: not counted per address), or
  // an empty ticket when a cap is reached.
  Ticket admit(const std::string& key) {
    std::lock_guard lock(mutex_);
    if (max_total_ > 0 && total_ >= max_total_) return {};
    if (!key.empty() && max_per_ip_ > 0) {
      int& n = per_ip_[key];
      if (n >= max_per_ip_) return {};
      ++n;
    }
    ++total_;
    return Ticket(this, key);
  }

 private:
  void release(const std::string& key) {
    std::lock_guard lock(mutex_);
    --total_;
    if (!key.empty() && max_per_ip_ > 0) {
      auto it = per_ip_.find(key);
      if (it != per_ip_.end() && --it->second <= 0) per_ip_.erase(it);
    }
  }

  mutable std::mutex mutex_;
  int max_total_, max_per_ip_;
  int total_ = 0;
  std::unordered_map<std::string, int> per_ip_;
};

// The key that per-address limits count under: an IPv4 address, or the /64
// network of an IPv6 address (one subscriber usually holds a whole /64).
inline std::string address_key(const asio::ip::address& a) {
  if (a.is_v6()) {
    asio::ip::address_v6 v6 = a.to_v6();
    if (v6.is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, v6).to_string();
    auto bytes = v6.to_bytes();
    std::fill(bytes.begin() + 8, bytes.end(), 0);
    return asio::ip::address_v6(bytes).to_string() + "/64";
  }
  return a.to_string();
}

class WsSession;

// The open WebSocket sessions, so that a shutdown can tell each to go.
class Sessions {
 public:
  void add(const std::shared_ptr<WsSession>& s) {
    std::lock_guard lock(mutex_);
    live_[s.get()] = s;
  }
  void remove(WsSession* s) {
    std::lock_guard lock(mutex_);
    live_.erase(s);
  }
  size_t size() const {
    std::lock_guard lock(mutex_);
    return live_.size();
  }
  std::vector<std::shared_ptr<WsSession>> all() const {
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<WsSession>> out;
    for (const auto& [_, w] : live_)
      if (auto s = w.lock()) out.push_back(std::move(s));
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::map<WsSession*, std::weak_ptr<WsSession>> live_;
};

// The HTTP connections, so that a shutdown can close those waiting for a
// request (a browser keeps a few open between requests).
class HttpConns {
 public:
  void add(beast::tcp_stream* s) {
    std::lock_guard lock(mutex_);
    live_.emplace(s, Entry{s->get_executor(), false});
  }
  void remove(beast::tcp_stream* s) {
    std::lock_guard lock(mutex_);
    live_.erase(s);
  }
  void set_idle(beast::tcp_stream* s, bool idle) {
    std::lock_guard lock(mutex_);
    if (auto it = live_.find(s); it != live_.end()) it->second.idle = idle;
  }
  // Shuts the connections that wait for a request, each on its own strand
  // (where it is also removed, so it is still there when found).
  void close_idle() {
    std::vector<std::pair<beast::tcp_stream*, asio::any_io_executor>> idle;
    {
      std::lock_guard lock(mutex_);
      for (const auto& [s, e] : live_)
        if (e.idle) idle.emplace_back(s, e.executor);
    }
    for (auto& [s, ex] : idle)
      asio::post(ex, [this, s = s] {
        std::lock_guard lock(mutex_);
        auto it = live_.find(s);
        if (it == live_.end() || !it->second.idle) return;
        beast::error_code ec;
        s->socket().shutdown(tcp::socket::shutdown_both, ec);
        s->socket().cancel(ec);
      });
  }

 private:
  struct Entry {
    asio::any_io_executor executor;
    bool idle;
  };
  std::mutex mutex_;
  std::map<beast::tcp_stream*, Entry> live_;
};

// One of the process's hubs (each holds the tables of its codes: shard_of),
// with its thread's queue and the API's parts as it answers them.
// Where a WebSocket connection's messages are heard: the hub holding its
// table, or the lobby; each on its own thread.
struct Hearer {
  asio::io_context* ioc = nullptr;
  Listener* listener = nullptr;
};

struct HubShard {
  asio::io_context& ioc;
  Hub& hub;
  routes::Parts& parts;  // this hub, the lobby and the community, for the API's routes
  Hearer hearer() { return {&ioc, &hub}; }
  struct Ref {
    asio::io_context* ioc;
    Hub* hub;
  };
};

struct Context {
  std::vector<HubShard> hubs;
  StoreWriter* writer;  // the hubs' one store writer (for /metrics)
  GameRecords& records;
  std::filesystem::path web_dir;
  std::string public_url;  // links point here
  std::vector<asio::ip::address> trusted_proxies;
  std::vector<std::string> allowed_origins;  // besides the public URL's and the request's own
  std::vector<std::string> known_hosts;      // names the API answers for (see host_allowed)
  int hello_timeout_ms;
  ConnectionGate& gate;
  bool ws_deflate;
  Sessions sessions;
  HttpConns http_conns;
  std::atomic<bool> draining{false};  // shutting down: no keep-alive, not ready
  // Games' pictures: drawn on their own thread (never the hub's or the
  // network's), a few at a time, and kept a while.
  PictureCache pictures{};
  asio::thread_pool painter{1};
  std::atomic<int> drawing{0};
  // Pictures drawn for each address: one address's flood of pictures never
  // drawn before is refused (429), so that others' link previews are drawn.
  AddressLimiter renders{};
  int renders_per_minute = 30;
  std::atomic<uint64_t> renders_asked{0};
  std::mutex drawing_mutex{};
  std::map<std::string, int> drawing_for{};  // pictures being drawn, by address
  // Games' records and snapshots: read from the store and made on threads of
  // their own, so that a long game's record holds up no table.
  asio::thread_pool readers{2};
  // The community's calls (the feedback board, recommendations): a thread of
  // their own, so that their store's answers never hold a table up.
  asio::thread_pool community_thread{1};
  // Finding an opponent: a connection that opens at no table is heard by
  // the lobby, on its own thread.
  Hearer lobby{};
  asio::io_context& lobby_ioc() { return *lobby.ioc; }
  // Turn notifications (push subscriptions, My games), on their own thread.
  asio::io_context* notices = nullptr;
  // Tournaments, on their own thread.
  asio::io_context* tournaments = nullptr;
  StaticFiles statics{};  // the web client's files, read once
  webpush::Sender* push = nullptr;  // for /metrics
  int ws_idle_ms = 60000;

  // The hub that holds a table's code (any case); and one for what holds no
  // table (new tables, a connection not yet at one), in turn.
  HubShard& hub_for(std::string_view code) { return hubs[shard_of(normalise_code(std::string(code)), hubs.size())]; }
  HubShard& any_hub() { return hubs[next_hub.fetch_add(1, std::memory_order_relaxed) % hubs.size()]; }
  std::atomic<size_t> next_hub{0};

  bool trusted(const asio::ip::address& a) const {
    return std::find(trusted_proxies.begin(), trusted_proxies.end(), plain(a)) != trusted_proxies.end();
  }
  // An IPv4 address reached over an IPv6 socket (::ffff:a.b.c.d) as IPv4.
  static asio::ip::address plain(const asio::ip::address& a) {
    if (a.is_v6() && a.to_v6().is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
    return a;
  }
};

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// Accepts connections until the acceptor closes, each served on a strand of
// its own (http_server.cpp).
awaitable<void> listen(tcp::acceptor& acceptor, Context& ctx);
// The host name of a URL or origin, lower case (http_server.cpp).
std::string host_of_url(std::string_view url);
// A WebSocket session on an upgraded connection, to its end (ws_session.cpp).
awaitable<void> run_websocket(tcp::socket socket, Context& ctx, std::string ip, ConnectionGate::Ticket ticket,
                              Request req);
// Ends a session with "going away" (1001), once what it was sent is written.
void go_away(WsSession& session);
// How the community asks the tables whose seat a token is: on the thread of
// the hub holding the table, waited for (at most a few seconds) on the
// community's.
Community::SeatCheck seat_check_through(std::vector<HubShard::Ref> hubs);

}  // namespace makruk::server::net_detail
