// The network layer: HTTP and WebSocket on Boost.Beast with C++20 coroutines.
// The only translation unit that includes Beast (it is slow to compile).
// Sockets run on the network threads; every hub call runs on the hub's own
// thread, so blocking storage never stalls a socket.
#include "server/net/http_server.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <deque>
#include <filesystem>
#include <iostream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "engine/egtb.h"
#include "server/image/game_pictures.h"
#include "server/metrics.h"
#include "server/net/compress.h"
#include "server/net/routes.h"
#include "server/net/static_files.h"
#include "server/tables/hub.h"
#include "server/text.h"
#include "server/push/webpush.h"

namespace makruk::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;

namespace {

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
std::string address_key(const asio::ip::address& a) {
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

struct Context {
  asio::io_context& hub_ioc;
  Hub& hub;
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
  std::mutex drawing_mutex;
  std::map<std::string, int> drawing_for;  // pictures being drawn, by address
  // Games' records and snapshots: read from the store and made on threads of
  // their own, so that a long game's record holds up no table.
  asio::thread_pool readers{2};
  StaticFiles statics{};  // the web client's files, read once
  webpush::Sender* push = nullptr;  // for /metrics
  int ws_idle_ms = 60000;

  bool trusted(const asio::ip::address& a) const {
    return std::find(trusted_proxies.begin(), trusted_proxies.end(), plain(a)) != trusted_proxies.end();
  }
  // An IPv4 address reached over an IPv6 socket (::ffff:a.b.c.d) as IPv4.
  static asio::ip::address plain(const asio::ip::address& a) {
    if (a.is_v6() && a.to_v6().is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
    return a;
  }
};

std::string_view content_type(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".webmanifest") return "application/manifest+json";
  if (ext == ".json") return "application/json";
  if (ext == ".wasm") return "application/wasm";
  if (ext == ".woff2") return "font/woff2";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".txt") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

Response make_response(const Request& req, int status, std::string body, std::string_view type) {
  Response res{http::status(status), req.version()};
  res.set(http::field::server, "makruk");
  res.set(http::field::content_type, type);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Content-Security-Policy", CSP);
  res.set("Referrer-Policy", "no-referrer");
  res.set("X-Frame-Options", "DENY");
  res.set("Cross-Origin-Opener-Policy", "same-origin");
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  if (req.method() == http::verb::head) {  // the headers of a GET, and no body
    const size_t n = res.body().size();
    res.body().clear();
    res.content_length(n);
  }
  return res;
}

// The client's address: the TCP peer, or, when the peer is a trusted proxy,
// the nearest address in X-Forwarded-For that is not one of the trusted proxies.
asio::ip::address client_address(const Context& ctx, const asio::ip::address& peer, const Request& req) {
  if (!ctx.trusted(peer)) return peer;
  std::vector<std::string_view> hops;
  auto fields = req.equal_range("X-Forwarded-For");
  for (auto it = fields.first; it != fields.second; ++it) {
    auto items = list_items(std::string_view(it->value().data(), it->value().size()));
    hops.insert(hops.end(), items.begin(), items.end());
  }
  asio::ip::address client = peer;
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    boost::system::error_code ec;
    asio::ip::address a = asio::ip::make_address(std::string(*it), ec);
    if (ec) break;  // what lies beyond an unreadable hop cannot be trusted
    client = a;
    if (!ctx.trusted(a)) break;
  }
  return client;
}

// A browser's request from a page of another site is refused: WebSockets and
// API POSTs that carry an Origin must come from the public URL, the request's
// own host, or an allowed origin. Requests without Origin (not from a page)
// pass.
bool origin_allowed(const Context& ctx, const Request& req) {
  auto it = req.find(http::field::origin);
  if (it == req.end()) return true;
  const std::string origin = lower(trim(std::string_view(it->value().data(), it->value().size())));
  const std::string host = lower(std::string_view(req[http::field::host].data(), req[http::field::host].size()));
  if (!host.empty() && (origin == "http://" + host || origin == "https://" + host)) return true;
  if (origin == webpush::origin_of(ctx.public_url)) return true;
  return std::find(ctx.allowed_origins.begin(), ctx.allowed_origins.end(), origin) != ctx.allowed_origins.end();
}

// The host name of an authority ("Play.Example:8443" gives "play.example",
// "[::1]:80" gives "[::1]"), without a trailing dot; empty when malformed.
std::string host_name(std::string_view authority) {
  std::string a = lower(trim(authority));
  if (!a.empty() && a.front() == '[') {
    const size_t close = a.find(']');
    if (close == std::string::npos) return {};
    const std::string_view after = std::string_view(a).substr(close + 1);
    if (!after.empty() && (after.front() != ':' || after.find_first_not_of("0123456789", 1) != std::string::npos))
      return {};
    return a.substr(0, close + 1);
  }
  if (const size_t colon = a.find(':'); colon != std::string::npos) {
    if (a.find_first_not_of("0123456789", colon + 1) != std::string::npos) return {};
    a.resize(colon);
  }
  if (!a.empty() && a.back() == '.') a.pop_back();
  return a;
}

// The host name in an origin or URL ("https://play.example:8443/x" gives "play.example").
std::string host_of_url(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  url.remove_prefix(scheme + 3);
  return host_name(url.substr(0, url.find_first_of("/?#")));
}

// DNS rebinding: a page of another site whose name was pointed at this
// server's address sends that name as Host, and its Origin matches it. The API
// and WebSockets therefore answer only names the server knows as its own: the
// public URL's host, the allowed origins' hosts, "localhost", and addresses
// written as numbers (they have no name to rebind). A request without Host
// (HTTP/1.0, never a browser's) passes.
bool host_allowed(const Context& ctx, const Request& req) {
  auto it = req.find(http::field::host);
  if (it == req.end()) return true;
  const std::string host = host_name(std::string_view(it->value().data(), it->value().size()));
  if (host.empty()) return false;
  if (host == "localhost") return true;
  boost::system::error_code ec;
  if (host.front() == '[') {
    asio::ip::make_address_v6(host.substr(1, host.size() - 2), ec);
    return !ec;
  }
  asio::ip::make_address_v4(host, ec);
  if (!ec) return true;
  return std::find(ctx.known_hosts.begin(), ctx.known_hosts.end(), host) != ctx.known_hosts.end();
}

bool is_json(const Request& req) {
  std::string_view type(req[http::field::content_type].data(), req[http::field::content_type].size());
  return lower(trim(type.substr(0, type.find(';')))) == "application/json";
}

Response json_error(const Request& req, int status, std::string_view code, Msg message);

// Only "chunked" is understood as a transfer coding; anything else (or both
// Transfer-Encoding and Content-Length) is refused, so that no one can make
// the server read a body as the next request.
std::optional<Response> framing_error(const Request& req) {
  size_t codings = req.count(http::field::transfer_encoding);
  if (codings == 0) return std::nullopt;
  Request r;  // the answer closes the connection
  r.version(req.version());
  r.keep_alive(false);
  if (req.count(http::field::content_length))
    return json_error(r, 400, "bad-request", Msg::FramingBoth);
  std::string_view te(req[http::field::transfer_encoding].data(), req[http::field::transfer_encoding].size());
  if (codings > 1 || lower(trim(te)) != "chunked")
    return json_error(r, 501, "bad-request", Msg::CodingUnknown);
  return std::nullopt;
}

// An error the network layer answers itself, with its message id as the hub's
// errors have one: {"error", "code", "msg", "args"}.
using routes::error_json;

Response json_error(const Request& req, int status, std::string_view code, Msg message) {
  return make_response(req, status, error_json(code, message), "application/json");
}


// Whether the request's Accept-Encoding takes `coding` (named with q > 0, or
// through "*" when not named).
bool accepts(const Request& req, std::string_view coding) {
  std::string_view header(req[http::field::accept_encoding].data(), req[http::field::accept_encoding].size());
  std::optional<bool> named, any;
  for (std::string_view item : list_items(header)) {
    size_t semi = item.find(';');
    std::string name = lower(trim(item.substr(0, semi)));
    bool wanted = true;
    if (semi != std::string_view::npos) {
      std::string params = lower(trim(item.substr(semi + 1)));
      params.erase(std::remove(params.begin(), params.end(), ' '), params.end());
      // q=0, q=0.0, q=0.000: not acceptable
      if (params.rfind("q=0", 0) == 0 && params.find_first_not_of("0.", 3) == std::string::npos) wanted = false;
    }
    if (name == coding) named = wanted;
    else if (name == "*") any = wanted;
  }
  return named ? *named : any.value_or(false);
}

// Serves a file of the built web client; any other path gets index.html, so
// that client-side routes like /p/CODE load the application. The build keeps
// brotli and gzip copies beside the files that compress (FILE.br, FILE.gz):
// the one the browser takes is sent as it is. Every answer carries the
// file's ETag; a browser that already holds that file gets 304 and no body.
Response serve_static(Context& ctx, const Request& req) {
  std::string target(req.target().substr(0, req.target().find('?')));
  std::filesystem::path rel = std::filesystem::path(target).relative_path().lexically_normal();
  bool escapes = !rel.empty() && *rel.begin() == "..";
  std::filesystem::path file = ctx.web_dir / rel;
  std::error_code ec;
  if (escapes || rel.empty() || !std::filesystem::is_regular_file(file, ec)) {
    // A missing file (a name with an extension: /robots.txt, /x.js) is not
    // found; any other path is a route of the client, which index.html loads.
    if (!escapes && rel.has_extension())
      return make_response(req, 404, "Not found.\n", "text/plain; charset=utf-8");
    file = ctx.web_dir / "index.html";
  }
  std::filesystem::path sent = file;
  std::string_view encoding;
  bool compressed = false;
  for (auto [coding, ext] : {std::pair<std::string_view, const char*>{"br", ".br"}, {"gzip", ".gz"}}) {
    std::filesystem::path copy = file;
    copy += ext;
    if (!std::filesystem::is_regular_file(copy, ec)) continue;
    compressed = true;
    if (encoding.empty() && accepts(req, coding)) {
      encoding = coding;
      sent = copy;
    }
  }
  std::shared_ptr<const StaticFiles::File> data = ctx.statics.get(sent);
  if (!data)
    return make_response(req, 503, "The web client is not built (run scripts/build-web.sh).\n",
                         "text/plain; charset=utf-8");
  const auto none_match = req.find(http::field::if_none_match);
  const bool fresh = none_match != req.end() &&
                     StaticFiles::none_match(std::string_view(none_match->value().data(), none_match->value().size()),
                                             data->etag);
  Response res = make_response(req, fresh ? 304 : 200, fresh ? std::string() : data->body, content_type(file));
  if (fresh) res.erase(http::field::content_length);  // a HEAD's 0 would not be the file's length
  res.set(http::field::etag, data->etag);
  if (!encoding.empty()) res.set(http::field::content_encoding, encoding);
  if (compressed) res.set(http::field::vary, "Accept-Encoding");
  bool hashed = rel.string().rfind("assets/", 0) == 0;
  res.set(http::field::cache_control, hashed ? "public, max-age=31536000, immutable" : "no-cache");
  return res;
}

// Runs on the hub's thread (co_spawned there): the route table finds the
// hub's handler (routes.cpp).
awaitable<HttpReply> call_hub(Context& ctx, http::verb method, std::string target, std::string body, std::string ip,
                              std::string authorization = "") {
  const size_t q = target.find('?');
  routes::ApiRequest r;
  r.method = method == http::verb::get ? routes::Method::Get
             : method == http::verb::post ? routes::Method::Post
                                          : routes::Method::Other;
  r.path = std::string_view(target).substr(0, q);
  r.query = q == std::string::npos ? std::string_view() : std::string_view(target).substr(q + 1);
  r.body = body;
  r.ip = ip;
  r.authorization = authorization;
  r.base_url = ctx.public_url;
  co_return routes::answer(ctx.hub, r);
}

// The operators' figures: the hub's (on its thread), then the network's.
awaitable<HttpReply> hub_metrics(Context& ctx, bool local, std::string authorization, std::string ip) {
  co_return ctx.hub.metrics(local, authorization, ip);
}

std::string net_metrics(Context& ctx) {
  MetricsText m;
  m.gauge("connections", "Open connections (HTTP and WebSocket).", ctx.gate.open());
  m.gauge("websockets", "Open WebSocket sessions.", double(ctx.sessions.size()));
  m.gauge("pictures_drawing", "Game pictures being drawn or waiting to be.", ctx.drawing.load());
  m.counter("records_made_total", "Game records made (each version of a game once).", double(ctx.records.made()));
  if (ctx.push) m.gauge("push_pending", "Push deliveries not yet finished (waiting, in flight, or to retry).",
                        double(ctx.push->pending()));
  return m.text();
}

// A game's record, /api/games/ID (JSON) or /api/games/ID.pgn; runs on the
// readers' threads.
awaitable<HttpReply> read_record(Context& ctx, std::string path, std::string ip) {
  std::string id = path.substr(11);
  const bool pgn = id.size() > 4 && id.ends_with(".pgn");
  if (pgn) id.resize(id.size() - 4);
  co_return ctx.records.record(id, ip, pgn);
}

// A game's pictures (/api/games/ID.png, ?size=card for the link preview's) and its
// page (/g/ID) with the preview's tags. The game is looked up on the readers'
// threads; the picture is drawn on the painter's.
constexpr int MAX_DRAWING = 8;  // pictures being drawn or waiting; more: 503
constexpr int MAX_DRAWING_PER_ADDRESS = 2;  // of them, for one address; more: 429

awaitable<std::variant<GameSnapshot, HttpReply>> read_snapshot(Context& ctx, std::string id, std::string ip) {
  co_return ctx.records.snapshot(id, ip);
}

awaitable<std::string> draw_on_painter(GameSnapshot game, PictureKind kind) {
  std::string error;
  std::string png = draw_game_picture(game, kind, &error);
  if (png.empty()) std::cerr << "makruk serve: game " << game.id << ": cannot draw its picture: " << error << "\n";
  co_return png;
}

awaitable<Response> serve_game_picture(Context& ctx, const Request& req, std::string id, PictureKind kind,
                                       std::string ip) {
  auto found = co_await asio::co_spawn(ctx.readers, read_snapshot(ctx, std::move(id), ip), use_awaitable);
  if (auto* refusal = std::get_if<HttpReply>(&found)) {
    Response res = make_response(req, refusal->status, std::move(refusal->body), refusal->content_type);
    res.set(http::field::cache_control, "no-store");
    co_return res;
  }
  const GameSnapshot& game = std::get<GameSnapshot>(found);
  const std::string key = PictureCache::key(game, kind);
  std::shared_ptr<const std::string> png = ctx.pictures.get(key);
  if (!png) {
    const int64_t now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (++ctx.renders_asked % 256 == 0) ctx.renders.sweep(now_ms);  // forget addresses a minute quiet
    if (!ctx.renders.allow(ip, now_ms, ctx.renders_per_minute)) {
      Response res = json_error(req, 429, "rate-limited", Msg::LimitPictures);
      res.set(http::field::retry_after, "60");
      res.set(http::field::cache_control, "no-store");
      co_return res;
    }
    // One address has at most MAX_DRAWING_PER_ADDRESS pictures drawn at once,
    // so that its burst leaves the other places to others.
    struct Mine {
      Context& ctx;
      const std::string& ip;
      bool counted = false;
      ~Mine() {
        if (!counted) return;
        std::lock_guard lock(ctx.drawing_mutex);
        if (--ctx.drawing_for[ip] <= 0) ctx.drawing_for.erase(ip);
      }
    } mine{ctx, ip};
    {
      std::lock_guard lock(ctx.drawing_mutex);
      int& n = ctx.drawing_for[ip];
      mine.counted = n < MAX_DRAWING_PER_ADDRESS;
      if (mine.counted) ++n;
      else if (n == 0) ctx.drawing_for.erase(ip);
    }
    if (!mine.counted) {
      Response res = json_error(req, 429, "rate-limited", Msg::LimitPictures);
      res.set(http::field::retry_after, "2");
      res.set(http::field::cache_control, "no-store");
      co_return res;
    }
    struct Slot {
      std::atomic<int>& n;
      ~Slot() { --n; }
    } slot{ctx.drawing};
    if (++ctx.drawing > MAX_DRAWING) {
      Response res = json_error(req, 503, "busy", Msg::PicturesBusy);
      res.set(http::field::retry_after, "2");
      res.set(http::field::cache_control, "no-store");
      co_return res;
    }
    std::string drawn = co_await asio::co_spawn(ctx.painter, draw_on_painter(game, kind), use_awaitable);
    if (drawn.empty()) co_return json_error(req, 500, "internal", Msg::PictureFailed);
    png = std::make_shared<const std::string>(std::move(drawn));
    ctx.pictures.put(key, png);
  }
  Response res = make_response(req, 200, *png, "image/png");
  // A finished game's picture never changes; a running one's changes with each move.
  res.set(http::field::cache_control, game.result == "*" ? "public, max-age=30" : "public, max-age=86400");
  co_return res;
}

awaitable<Response> serve_game_page(Context& ctx, const Request& req, std::string id, std::string ip) {
  std::shared_ptr<const StaticFiles::File> index = ctx.statics.get(ctx.web_dir / "index.html");
  if (!index) co_return serve_static(ctx, req);
  auto found = co_await asio::co_spawn(ctx.readers, read_snapshot(ctx, std::move(id), ip), use_awaitable);
  Response res;
  if (auto* game = std::get_if<GameSnapshot>(&found))
    res = make_response(req, 200, game_page_html(index->body, *game, ctx.public_url), "text/html; charset=utf-8");
  else  // the page says what is wrong; the status tells a link preview
    res = make_response(req, std::get<HttpReply>(found).status, index->body, "text/html; charset=utf-8");
  res.set(http::field::cache_control, "no-cache");
  co_return res;
}

class WsSession : public Client, public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(tcp::socket&& socket, Context& ctx, std::string client, ConnectionGate::Ticket ticket)
      : ws_(std::move(socket)), ctx_(ctx), hello_timer_(ws_.get_executor()), close_timer_(ws_.get_executor()), ticket_(std::move(ticket)) {
    ip = std::move(client);
  }

  void send(std::shared_ptr<const std::string> text) override {
    asio::post(ws_.get_executor(), [self = shared_from_this(), text = std::move(text)] {
      if (self->closed_ || self->closing_) return;
      if (self->queue_.size() >= MAX_QUEUED || self->queued_bytes_ + text->size() > MAX_QUEUED_BYTES)
        return self->do_close();
      self->queued_bytes_ += text->size();
      self->queue_.push_back(text);
      if (!self->writing_) self->write_next();
    });
  }

  // The hub ends a connection politely: what it has already queued is still
  // written, then a close frame; a peer that does not take them within
  // CLOSE_GRACE is cut off.
  void close() override {
    end_politely(websocket::close_reason(websocket::close_code::policy_error, "too many messages"));
  }
  // The server is shutting down: the same, with "going away" (1001), so that
  // the client reconnects, to another instance or to this one restarted.
  void go_away() { end_politely(websocket::close_reason(websocket::close_code::going_away, "server restarting")); }

  void end_politely(websocket::close_reason why) {
    asio::post(ws_.get_executor(), [self = shared_from_this(), why = std::move(why)] {
      if (self->closed_ || self->closing_) return;
      self->closing_ = true;
      self->close_reason_ = why;
      self->close_timer_.expires_after(CLOSE_GRACE);
      self->close_timer_.async_wait([self](beast::error_code ec) {
        if (!ec) self->do_close();
      });
      if (!self->writing_) self->write_close();
    });
  }

  static awaitable<void> run(std::shared_ptr<WsSession> self, Request req) {
    auto& ws = self->ws_;
    // Pinged when nothing came for half the idle time, and closed when nothing
    // (not even the pong) came for all of it: a page in the background still
    // answers pings, a socket that answers nothing is gone within a minute,
    // and leaves the seekers' queue and its table's presence.
    auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::server);
    timeouts.idle_timeout = std::chrono::milliseconds(self->ctx_.ws_idle_ms);
    timeouts.keep_alive_pings = true;
    ws.set_option(timeouts);
    ws.read_message_max(MAX_WS_MESSAGE);
    if (self->ctx_.ws_deflate) {
      // Small windows keep a connection's compressor to about 20 KB; the
      // context carries over from message to message, so a state that repeats
      // most of the previous one costs little. Short messages go as they are.
      websocket::permessage_deflate pmd;
      pmd.server_enable = true;
      pmd.server_max_window_bits = DEFLATE_WINDOW_BITS;
      pmd.client_max_window_bits = DEFLATE_WINDOW_BITS;
      pmd.compLevel = 6;
      pmd.memLevel = 4;
      pmd.msg_size_threshold = 128;
      ws.set_option(pmd);
    }
    self->ctx_.sessions.add(self);
    if (self->ctx_.draining) self->go_away();
    try {
      co_await ws.async_accept(req, use_awaitable);
      // A connection that has not joined a table by then is closed.
      if (self->ctx_.hello_timeout_ms > 0) {
        self->hello_timer_.expires_after(std::chrono::milliseconds(self->ctx_.hello_timeout_ms));
        self->hello_timer_.async_wait([self](beast::error_code ec) {
          if (!ec && !self->greeted) self->do_close();
        });
      }
      beast::flat_buffer buffer;
      bool flooded = false;
      for (;;) {
        buffer.clear();
        co_await ws.async_read(buffer, use_awaitable);
        if (self->closed_) break;
        if (self->closing_ || flooded) continue;  // what it says now goes unheard
        // A client whose messages pile up at the hub is flooding it: the hub
        // answers what it was given, then ends the connection.
        if (self->at_hub_.fetch_add(1) >= MAX_AT_HUB) {
          flooded = true;
          asio::post(self->ctx_.hub_ioc, [self] { self->close(); });
          continue;
        }
        std::string text = beast::buffers_to_string(buffer.data());
        asio::post(self->ctx_.hub_ioc, [self, text = std::move(text)] {
          self->ctx_.hub.on_message(self, text);
          self->at_hub_.fetch_sub(1);
        });
      }
    } catch (const std::exception&) {
      // closed, timed out, or a message over the size limit
    }
    self->do_close();
    self->hello_timer_.cancel();
    self->close_timer_.cancel();
    self->ctx_.sessions.remove(self.get());
    asio::post(self->ctx_.hub_ioc, [self] { self->ctx_.hub.on_close(self); });
  }

 private:
  // Writes run one at a time, on the session's strand. The queue belongs to
  // the writer while a write is in flight: closing only marks the session
  // closed and shuts the socket, and the write's completion empties it.
  void write_next() {
    writing_ = true;
    ws_.text(true);
    ws_.async_write(asio::buffer(*queue_.front()), [self = shared_from_this()](beast::error_code ec, size_t) {
      self->queued_bytes_ -= self->queue_.front()->size();
      self->queue_.pop_front();
      self->writing_ = false;
      if (ec || self->closed_) {
        self->closed_ = true;
        self->queue_.clear();
        self->queued_bytes_ = 0;
        return;
      }
      if (!self->queue_.empty()) self->write_next();
      else if (self->closing_) self->write_close();
    });
  }

  void write_close() {
    writing_ = true;
    ws_.async_close(close_reason_, [self = shared_from_this()](beast::error_code) {
                      self->writing_ = false;
                      self->do_close();
                    });
  }

  void do_close() {
    if (closed_) return;
    closed_ = true;
    if (!writing_) {
      queue_.clear();
      queued_bytes_ = 0;
    }
    beast::error_code ec;
    beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ec);
  }

  websocket::stream<beast::tcp_stream> ws_;
  Context& ctx_;
  asio::steady_timer hello_timer_;
  asio::steady_timer close_timer_;
  ConnectionGate::Ticket ticket_;  // this connection's place, freed with the session
  std::deque<std::shared_ptr<const std::string>> queue_;
  size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool closed_ = false;
  bool closing_ = false;  // the hub asked to end it; the queue drains first
  websocket::close_reason close_reason_;
  std::atomic<int> at_hub_{0};
};

awaitable<void> serve_http(tcp::socket socket, Context& ctx, ConnectionGate::Ticket ticket) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  asio::ip::address peer;
  {
    beast::error_code ec;
    auto ep = stream.socket().remote_endpoint(ec);
    if (ec) co_return;
    peer = ep.address();
  }
  beast::error_code failure;
  ctx.http_conns.add(&stream);
  struct Unlist {
    HttpConns& conns;
    beast::tcp_stream* s;
    ~Unlist() { conns.remove(s); }
  } unlist{ctx.http_conns, &stream};
  try {
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(MAX_BODY);
      stream.expires_after(REQUEST_TIMEOUT);
      if (ctx.draining && buffer.size() == 0) break;
      ctx.http_conns.set_idle(&stream, buffer.size() == 0);
      co_await http::async_read_header(stream, buffer, parser, use_awaitable);
      ctx.http_conns.set_idle(&stream, false);
      if (auto refused = framing_error(parser.get())) {
        co_await http::async_write(stream, *refused, use_awaitable);
        break;
      }
      if (!parser.is_done()) co_await http::async_read(stream, buffer, parser, use_awaitable);
      Request req = parser.release();
      std::string target(req.target());
      std::string path = target.substr(0, target.find('?'));
      const std::string ip = address_key(client_address(ctx, peer, req));

      if (websocket::is_upgrade(req)) {
        std::optional<Response> refused;
        if (path != "/ws") refused = json_error(req, 404, "not-found", Msg::WebSocketPath);
        else if (!host_allowed(ctx, req)) refused = json_error(req, 421, "misdirected", Msg::HostRefused);
        else if (!origin_allowed(ctx, req)) refused = json_error(req, 403, "forbidden", Msg::OriginRefused);
        if (refused) {
          refused->keep_alive(false);
          co_await http::async_write(stream, *refused, use_awaitable);
          break;
        }
        stream.expires_never();
        ctx.http_conns.remove(&stream);
        auto session = std::make_shared<WsSession>(stream.release_socket(), ctx, ip, std::move(ticket));
        co_await WsSession::run(session, std::move(req));
        co_return;
      }

      Response res;
      const bool head = req.method() == http::verb::head;
      if (path == "/healthz") {
        // Alive: the process answers. /readyz asks the hub and the store too.
        res = make_response(req, 200, R"({"status":"ok"})", "application/json");
        res.set(http::field::cache_control, "no-store");
      } else if (path == "/readyz" && ctx.draining) {
        res = make_response(req, 503, R"({"status":"draining"})", "application/json");
        res.set(http::field::cache_control, "no-store");
      } else if (path == "/readyz") {
        HttpReply r = co_await asio::co_spawn(ctx.hub_ioc, call_hub(ctx, http::verb::get, "/readyz", "", ip), use_awaitable);
        res = make_response(req, r.status, std::move(r.body), r.content_type);
        res.set(http::field::cache_control, "no-store");
      } else if (path == "/metrics" && (req.method() == http::verb::get || head)) {
        // For operators: from this machine (not through a proxy that is not
        // declared trusted), or with the admin secret.
        const bool local = Context::plain(client_address(ctx, peer, req)).is_loopback() &&
                           (ctx.trusted(peer) || req.find("X-Forwarded-For") == req.end());
        HttpReply r = co_await asio::co_spawn(
            ctx.hub_ioc, hub_metrics(ctx, local, std::string(req[http::field::authorization]), ip), use_awaitable);
        if (r.status == 200) r.body += net_metrics(ctx);
        res = make_response(req, r.status, std::move(r.body), r.content_type);
        res.set(http::field::cache_control, "no-store");
      } else if (path.rfind("/api/games/", 0) == 0 && path.size() > 15 && path.ends_with(".png") &&
                 (req.method() == http::verb::get || head)) {
        const size_t q = target.find('?');
        const bool card = q != std::string::npos && query_param(std::string_view(target).substr(q + 1), "size") == "card";
        res = co_await serve_game_picture(ctx, req, path.substr(11, path.size() - 15),
                                          card ? PictureKind::Card : PictureKind::Square, ip);
      } else if (path.rfind("/g/", 0) == 0 && path.size() > 3 && path.find('/', 3) == std::string::npos &&
                 (req.method() == http::verb::get || head)) {
        res = co_await serve_game_page(ctx, req, path.substr(3), ip);
      } else if (path.rfind("/api/", 0) == 0) {
        const bool post = req.method() == http::verb::post;
        if (!host_allowed(ctx, req)) {
          res = json_error(req, 421, "misdirected", Msg::HostRefused);
        } else if (post && !origin_allowed(ctx, req)) {
          res = json_error(req, 403, "forbidden", Msg::OriginRefused);
        } else if (post && !is_json(req)) {
          res = json_error(req, 415, "bad-request", Msg::JsonOnly);
        } else {
          const bool record = path.rfind("/api/games/", 0) == 0 && (req.method() == http::verb::get || head);
          // (Not a conditional expression of two co_awaits: GCC 12 destroys its result twice.)
          HttpReply r;
          if (record)
            r = co_await asio::co_spawn(ctx.readers, read_record(ctx, path, ip), use_awaitable);
          else
            r = co_await asio::co_spawn(ctx.hub_ioc,
                                        call_hub(ctx, head ? http::verb::get : req.method(), target, req.body(), ip,
                                                 std::string(req[http::field::authorization])),
                                        use_awaitable);
          // A long answer (a game's record) goes out in gzip to a browser that takes it.
          std::optional<std::string> packed;
          if (r.body.size() >= GZIP_MIN_BYTES && accepts(req, "gzip")) packed = gzip(r.body);
          res = make_response(req, r.status, packed ? std::move(*packed) : std::move(r.body), r.content_type);
          if (packed) res.set(http::field::content_encoding, "gzip");
          res.set(http::field::vary, "Accept-Encoding");
        }
        res.set(http::field::cache_control, "no-store");
      } else if (req.method() == http::verb::get || head) {
        res = serve_static(ctx, req);
      } else {
        res = json_error(req, 405, "bad-request", Msg::MethodRefused);
      }
      if (ctx.draining) res.keep_alive(false);
      bool keep = res.keep_alive();
      co_await http::async_write(stream, res, use_awaitable);
      if (!keep) break;
    }
  } catch (const boost::system::system_error& e) {
    failure = e.code();
  } catch (const std::exception&) {
  }
  // A request the parser refused gets its answer (with a deadline, like every
  // write: a client that does not read cannot hold a network thread), and
  // the connection closes.
  std::optional<Response> refusal;
  Request closing;
  closing.keep_alive(false);
  if (failure == http::error::body_limit)
    refusal = json_error(closing, 413, "bad-request", Msg::RequestTooLarge);
  else if (failure == http::error::header_limit)
    refusal = json_error(closing, 431, "bad-request", Msg::HeadersTooLarge);
  else if (failure == http::error::bad_transfer_encoding || failure == http::error::bad_content_length)
    refusal = json_error(closing, 400, "bad-request", Msg::FramingMalformed);
  if (refusal) {
    beast::error_code ec;
    stream.expires_after(std::chrono::seconds(5));
    co_await http::async_write(stream, *refusal, asio::redirect_error(use_awaitable, ec));
  }
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

// Accepts for as long as the server runs. No error ends the loop: when the
// process is out of file descriptors (or memory), it waits a little and tries
// again, and connections over the caps are closed at once.
awaitable<void> listen(tcp::acceptor& acceptor, Context& ctx) {
  asio::steady_timer pause(acceptor.get_executor());
  for (;;) {
    tcp::socket socket(asio::make_strand(acceptor.get_executor()));
    beast::error_code ec;
    co_await acceptor.async_accept(socket, asio::redirect_error(use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
    if (ec) {
      const bool exhausted = ec == asio::error::no_descriptors || ec == asio::error::no_memory ||
                             ec == asio::error::no_buffer_space || ec.value() == ENFILE;
      pause.expires_after(std::chrono::milliseconds(exhausted ? 100 : 5));
      co_await pause.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    beast::error_code peerError;
    auto peer = socket.remote_endpoint(peerError);
    if (peerError) continue;  // already gone
    // Connections through a trusted proxy are not counted per address: the
    // proxy carries everyone's.
    std::string key = ctx.trusted(peer.address()) ? "" : address_key(peer.address());
    ConnectionGate::Ticket ticket = ctx.gate.admit(key);
    if (!ticket) {
      socket.close(peerError);
      continue;
    }
    auto ex = socket.get_executor();
    asio::co_spawn(ex, serve_http(std::move(socket), ctx, std::move(ticket)), asio::detached);
  }
}

}  // namespace

int run_server(const ServerOptions& o) {
  // Each connection is a file descriptor: allow as many as the system lets
  // us, and keep the connection cap under that with room for the database,
  // push deliveries (32 requests and 8 kept connections at most) and the web
  // client's files.
  rlimit files;
  int max_connections = o.max_connections;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    if (files.rlim_cur < files.rlim_max) {
      files.rlim_cur = files.rlim_max;
      setrlimit(RLIMIT_NOFILE, &files);
      getrlimit(RLIMIT_NOFILE, &files);
    }
    if (files.rlim_cur != RLIM_INFINITY) {
      const int limit = int(std::min<rlim_t>(files.rlim_cur, 1 << 30));
      const int room = std::max(1, limit - std::min(128, limit / 4));
      if (max_connections <= 0 || max_connections > room) max_connections = room;
    }
  }
  // The database holds push secrets and seat tokens' hashes: only the
  // server's user may read it.
  umask(077);
  std::error_code fsError;
  std::filesystem::create_directories(o.data_dir, fsError);
  if (fsError) {
    std::cerr << "makruk serve: cannot create data folder '" << o.data_dir << "': " << fsError.message() << "\n";
    return 1;
  }
  for (const char* name : {"", "makruk.db", "makruk.db-wal", "makruk.db-shm", "vapid.pem"}) {
    const auto path = std::filesystem::path(o.data_dir) / name;
    if (std::filesystem::exists(path, fsError))
      std::filesystem::permissions(path,
                                   *name ? std::filesystem::perms::owner_read | std::filesystem::perms::owner_write
                                         : std::filesystem::perms::owner_all,
                                   fsError);
  }
  // The CPU players' endgame tables: three-piece ones only from files.
  const std::string egtbDir = o.egtb_dir.empty() ? (std::filesystem::path(o.data_dir) / "egtb").string() : o.egtb_dir;
  if (const int n = engine::egtb_set_path(egtbDir))
    std::cerr << "makruk serve: " << n << " three-piece endgame tables in " << egtbDir << "\n";
  std::vector<asio::ip::address> proxies;
  for (const std::string& a : o.trusted_proxies) {
    boost::system::error_code ec;
    proxies.push_back(Context::plain(asio::ip::make_address(a, ec)));
    if (ec) {
      std::cerr << "makruk serve: --trusted-proxy '" << a << "' is not an IP address\n";
      return 1;
    }
  }
  std::string publicUrl = o.public_url;
  if (!publicUrl.empty()) {
    while (publicUrl.size() > 1 && publicUrl.back() == '/') publicUrl.pop_back();
    if (webpush::origin_of(publicUrl) != lower(publicUrl)) {
      std::cerr << "makruk serve: --public-url must be an origin such as https://makruk.example\n";
      return 1;
    }
  }
  // The tables' store, and a second connection for the games' records (read
  // on their own threads, so never waiting for the tables' writes).
  std::unique_ptr<Store> store, records_store;
  try {
    store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
    records_store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: " << e.what() << "\n";
    return 1;
  }

  // Declared so that they go in a safe order at the end: the hub (and the
  // CPU threads posting to its executor) first, then the hub's queue (whose
  // work holds connections), then the network's queue, then the connection
  // counts that the connections give back.
  ConnectionGate gate(max_connections, o.max_connections_per_ip);
  asio::io_context net_ioc(o.threads);
  asio::io_context hub_ioc(1);
  auto hub_work = asio::make_work_guard(hub_ioc);
  Hub hub(
      *store, [&hub_ioc](std::function<void()> f) { asio::post(hub_ioc, std::move(f)); },
      [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
      },
      o.cpu_threads > 0 ? o.cpu_threads : std::max(1, int(std::thread::hardware_concurrency()) - o.threads - 1));
  // The tables' actions are written by threads of their own, each with its
  // own connection, in batches (one commit each); a table's go to one of
  // them, in order. Declared after the hub's queue, which their answers go
  // to, and before it (and the hub) go.
  std::unique_ptr<StoreWriter> writer;
  try {
    const int lanes = o.store_writers > 0 ? o.store_writers : is_postgres_url(o.store) ? 4 : 1;
    std::vector<std::unique_ptr<Store>> connections;
    for (int i = 0; i < lanes; ++i) connections.push_back(open_store(o.store, o.data_dir, o.sqlite_full_sync));
    writer = std::make_unique<StoreWriter>(std::move(connections),
                                           [&hub_ioc](std::function<void()> f) { asio::post(hub_ioc, std::move(f)); });
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: " << e.what() << "\n";
    return 1;
  }
  hub.set_writer(writer.get());
  hub.set_limits(o.limits);  // before loading: searches resumed at start keep the time cap
  // The bus to the other instances (declared after the hub: its thread, which
  // posts to the hub, stops first).
  std::unique_ptr<Bus> bus;
  if (!o.bus.empty()) {
    try {
      bus = open_redis_bus(o.bus);
    } catch (const std::exception& e) {
      std::cerr << "makruk serve: " << e.what() << "\n";
      return 1;
    }
    hub.set_bus(bus.get());
  }
  // However this function ends, the hub lets go of the bus before the bus goes.
  struct LetGoOfBus {
    Hub& hub;
    ~LetGoOfBus() { hub.set_bus(nullptr); }
  } let_go_of_bus{hub};
  try {
    hub.load();
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: cannot load the database: " << e.what() << "\n";
    return 1;
  }
  if (o.test_clock) hub.enable_test_clock();
  hub.set_admin_secret(o.admin_secret);
  hub.set_defer([&hub_ioc](int64_t ms, std::function<void()> f) {
    auto timer = std::make_shared<asio::steady_timer>(hub_ioc, std::chrono::milliseconds(ms));
    timer->async_wait([timer, f = std::move(f)](beast::error_code ec) {
      if (!ec) f();
    });
  });

  // Web Push: the VAPID key lives in the data folder; deliveries run on the
  // sender's thread, and a gone subscription is dropped on the hub's.
  std::unique_ptr<webpush::Sender> sender;
  try {
    webpush::KeyPair vapid = webpush::load_or_create_vapid(o.data_dir);
    std::string publicKey = webpush::b64url_encode(vapid.public_raw());
    webpush::SenderOptions so;
    so.subject = o.push_subject;
    so.allow_private = o.push_allow_http;  // tests: a push service on loopback
    sender = std::make_unique<webpush::Sender>(std::move(vapid), so, [&hub_ioc, &hub](const std::string& endpoint) {
      asio::post(hub_ioc, [&hub, endpoint] { hub.drop_subscription(endpoint); });
    });
    hub.set_push(publicKey, [s = sender.get()](webpush::Delivery d) { s->send(std::move(d)); }, o.push_allow_http);
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: push notifications: " << e.what() << "\n";
    return 1;
  }

  // Turn-based tables end after 45 days without a move: look every minute.
  asio::steady_timer ticker(hub_ioc);
  std::function<void()> schedule_tick = [&] {
    ticker.expires_after(std::chrono::minutes(1));
    ticker.async_wait([&](beast::error_code ec) {
      if (ec) return;
      hub.tick();
      schedule_tick();
    });
  };
  asio::post(hub_ioc, [&] {
    hub.tick();
    schedule_tick();
  });
  // With other instances: CPU turns whose instance died are taken over, and
  // who is at each table is said again now and then.
  asio::steady_timer cpu_scanner(hub_ioc);
  std::function<void()> schedule_cpu_scan = [&] {
    cpu_scanner.expires_after(std::chrono::seconds(5));
    cpu_scanner.async_wait([&](beast::error_code ec) {
      if (ec) return;
      hub.scan_cpu();
      hub.heartbeat();
      schedule_cpu_scan();
    });
  };
  if (bus) asio::post(hub_ioc, schedule_cpu_scan);
  std::vector<std::string> origins;
  for (const std::string& origin : o.allowed_origins) origins.push_back(lower(origin));

  tcp::acceptor acceptor(net_ioc);
  try {
    tcp::endpoint ep(asio::ip::make_address(o.address), o.port);
    acceptor.open(ep.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(ep);
    acceptor.listen(asio::socket_base::max_listen_connections);
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: cannot listen on " << o.address << ":" << o.port << ": " << e.what() << "\n";
    return 1;
  }
  if (publicUrl.empty()) {
    std::string host = o.address == "0.0.0.0" || o.address == "::" ? "localhost" : o.address;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    publicUrl = "http://" + host + ":" + std::to_string(acceptor.local_endpoint().port());
  }
  GameRecords records(
      *records_store, [&hub](const std::string& ip, bool wrong) { return hub.code_guess_allowed(ip, wrong); },
      lower(publicUrl));
  std::vector<std::string> hosts{host_of_url(publicUrl)};
  for (const std::string& origin : origins) hosts.push_back(host_of_url(origin));
  Context ctx{hub_ioc, hub, records, o.web_dir, lower(publicUrl), std::move(proxies), std::move(origins),
              std::move(hosts), o.hello_timeout_ms, gate, o.ws_deflate, {}, {}, {}};
  ctx.push = sender.get();
  ctx.ws_idle_ms = o.ws_idle_ms;
  ctx.renders_per_minute = o.limits.pictures_per_minute;
  asio::co_spawn(net_ioc, listen(acceptor, ctx), asio::detached);

  // SIGTERM or SIGINT drains: no new connection, every WebSocket gets what it
  // was sent and then "going away" (1001), answers in progress are written
  // without keep-alive; after at most --drain-seconds the network stops, the
  // hub finishes what it was given (its writes included), and the process
  // exits 0.
  asio::signal_set signals(net_ioc, SIGINT, SIGTERM);
  asio::steady_timer drain_timer(net_ioc);
  const auto drain_deadline_after = std::chrono::milliseconds(o.drain_ms);
  std::function<void(Clock::time_point)> wait_drained = [&](Clock::time_point deadline) {
    if (gate.open() == 0 || Clock::now() >= deadline) return net_ioc.stop();
    drain_timer.expires_after(std::chrono::milliseconds(20));
    drain_timer.async_wait([&, deadline](beast::error_code ec) {
      if (!ec) wait_drained(deadline);
    });
  };
  signals.async_wait([&](beast::error_code ec, int) {
    if (ec) return;
    ctx.draining = true;
    beast::error_code ignored;
    acceptor.close(ignored);
    for (auto& session : ctx.sessions.all()) session->go_away();
    ctx.http_conns.close_idle();
    wait_drained(Clock::now() + drain_deadline_after);
  });

  std::cout << "makruk serve: http://" << (o.address == "0.0.0.0" ? "localhost" : o.address) << ":"
            << acceptor.local_endpoint().port() << " (data in " << o.data_dir << ", " << hub.party_count()
            << " tables opened at start)" << std::endl;
  std::thread hub_thread([&] { hub_ioc.run(); });
  std::vector<std::thread> net_threads;
  for (int i = 1; i < o.threads; ++i) net_threads.emplace_back([&] { net_ioc.run(); });
  net_ioc.run();
  for (auto& t : net_threads) t.join();
  // Whatever reached the hub before now is handled (and stored) before it stops.
  auto handled = std::make_shared<std::promise<void>>();
  asio::post(hub_ioc, [handled, &ticker, &cpu_scanner] {
    ticker.cancel();
    cpu_scanner.cancel();
    handled->set_value();
  });
  handled->get_future().wait_for(std::chrono::seconds(10));
  // The actions given to the writer are stored, and what follows them (the
  // other instances told) done, before the hub stops.
  if (writer->wait_idle(10000)) {
    auto followed = std::make_shared<std::promise<void>>();
    asio::post(hub_ioc, [followed] { followed->set_value(); });
    followed->get_future().wait_for(std::chrono::seconds(10));
  }
  hub_work.reset();
  hub_ioc.stop();
  hub_thread.join();
  sender.reset();  // before the hub it posts to
  return 0;
}

}  // namespace makruk::server
