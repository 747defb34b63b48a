// The network layer: HTTP and WebSocket on Boost.Beast with C++20 coroutines.
// The only translation unit that includes Beast (it is slow to compile).
// Sockets run on the network threads; every hub call runs on the hub's own
// thread, so blocking storage never stalls a socket.
#include "http_server.h"

#include <sys/resource.h>

#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "hub.h"
#include "webpush.h"

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
constexpr size_t MAX_QUEUED = 512;  // a client this far behind is dropped

struct Context {
  asio::io_context& hub_ioc;
  Hub& hub;
  std::filesystem::path web_dir;
};

std::string_view content_type(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".json" || ext == ".webmanifest") return "application/json";
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
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

Response json_error(const Request& req, int status, std::string_view code, std::string_view message) {
  std::string body = "{\"error\":\"" + std::string(message) + "\",\"code\":\"" + std::string(code) + "\"}";
  return make_response(req, status, std::move(body), "application/json");
}

// Serves a file of the built web client; any other path gets index.html, so
// that client-side routes like /p/CODE load the application.
Response serve_static(const Context& ctx, const Request& req) {
  std::string target(req.target().substr(0, req.target().find('?')));
  std::filesystem::path rel = std::filesystem::path(target).relative_path().lexically_normal();
  bool escapes = !rel.empty() && *rel.begin() == "..";
  std::filesystem::path file = ctx.web_dir / rel;
  std::error_code ec;
  if (escapes || rel.empty() || !std::filesystem::is_regular_file(file, ec)) file = ctx.web_dir / "index.html";
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return make_response(req, 503, "The web client is not built (run scripts/build-web.sh).\n",
                         "text/plain; charset=utf-8");
  std::ostringstream data;
  data << in.rdbuf();
  Response res = make_response(req, 200, data.str(), content_type(file));
  bool hashed = rel.string().rfind("assets/", 0) == 0;
  res.set(http::field::cache_control, hashed ? "public, max-age=31536000, immutable" : "no-cache");
  if (req.method() == http::verb::head) res.body().clear();
  return res;
}

// Runs on the hub's thread (co_spawned there).
awaitable<HttpReply> call_hub(Context& ctx, http::verb method, std::string path, std::string body, std::string ip,
                              std::string base) {
  Hub& hub = ctx.hub;
  if (path == "/api/parties") {
    if (method != http::verb::post) co_return HttpReply{405, R"({"error":"use POST","code":"bad-request"})"};
    co_return hub.create_party(body, ip);
  }
  if (path == "/api/my-games" && method == http::verb::post) co_return hub.my_games(body, ip);
  if (path == "/api/push/key" && method == http::verb::get) co_return hub.push_key();
  if (path == "/api/push/subscribe" && method == http::verb::post) co_return hub.push_subscribe(body, ip);
  if (path == "/api/push/unsubscribe" && method == http::verb::post) co_return hub.push_unsubscribe(body);
  if (path == "/api/test/clock" && method == http::verb::post && hub.test_clock_enabled())
    co_return hub.advance_clock(body);
  const std::string prefix = "/api/parties/";
  if (path.rfind(prefix, 0) == 0) {
    std::string rest = path.substr(prefix.size());
    std::string code = rest.substr(0, rest.find('/'));
    std::string tail = rest.substr(code.size());
    code = normalise_code(std::move(code));
    // A malformed code goes through the hub too, so it counts as a wrong guess.
    if (tail.empty() && method == http::verb::get) co_return hub.get_party(code, ip);
    if (tail == "/join" && method == http::verb::post) co_return hub.join(code, body, ip);
    if (tail == "/qr.svg" && method == http::verb::get) co_return hub.qr_svg(code, base, ip);
    if (tail == "/event.ics" && method == http::verb::get) co_return hub.event_ics(code, base, ip);
  }
  co_return HttpReply{404, R"({"error":"no such endpoint","code":"not-found"})"};
}

class WsSession : public Client, public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(tcp::socket&& socket, Context& ctx, std::string peer) : ws_(std::move(socket)), ctx_(ctx) {
    ip = std::move(peer);
  }

  void send(std::shared_ptr<const std::string> text) override {
    asio::post(ws_.get_executor(), [self = shared_from_this(), text = std::move(text)] {
      if (self->closed_) return;
      if (self->queue_.size() >= MAX_QUEUED) return self->do_close();
      self->queue_.push_back(text);
      if (self->queue_.size() == 1) self->write_next();
    });
  }

  void close() override {
    asio::post(ws_.get_executor(), [self = shared_from_this()] { self->do_close(); });
  }

  static awaitable<void> run(std::shared_ptr<WsSession> self, Request req) {
    auto& ws = self->ws_;
    ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws.read_message_max(MAX_WS_MESSAGE);
    try {
      co_await ws.async_accept(req, use_awaitable);
      beast::flat_buffer buffer;
      for (;;) {
        buffer.clear();
        co_await ws.async_read(buffer, use_awaitable);
        std::string text = beast::buffers_to_string(buffer.data());
        asio::post(self->ctx_.hub_ioc, [self, text = std::move(text)] {
          self->ctx_.hub.on_message(self, text);
        });
      }
    } catch (const std::exception&) {
      // closed, timed out, or a message over the size limit
    }
    self->closed_ = true;
    asio::post(self->ctx_.hub_ioc, [self] { self->ctx_.hub.on_close(self); });
  }

 private:
  void write_next() {
    ws_.text(true);
    ws_.async_write(asio::buffer(*queue_.front()), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) {
        self->closed_ = true;
        self->queue_.clear();
        return;
      }
      self->queue_.pop_front();
      if (!self->queue_.empty()) self->write_next();
    });
  }

  void do_close() {
    if (closed_) return;
    closed_ = true;
    queue_.clear();
    beast::error_code ec;
    beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ec);
  }

  websocket::stream<beast::tcp_stream> ws_;
  Context& ctx_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  bool closed_ = false;
};

awaitable<void> serve_http(tcp::socket socket, Context& ctx) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  std::string ip;
  {
    beast::error_code ec;
    auto ep = stream.socket().remote_endpoint(ec);
    ip = ec ? "?" : ep.address().to_string();
  }
  try {
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(MAX_BODY);
      stream.expires_after(std::chrono::seconds(60));
      co_await http::async_read(stream, buffer, parser, use_awaitable);
      Request req = parser.release();
      std::string target(req.target());
      std::string path = target.substr(0, target.find('?'));

      if (websocket::is_upgrade(req)) {
        if (path != "/ws") {
          co_await http::async_write(stream, json_error(req, 404, "not-found", "WebSocket lives at /ws"), use_awaitable);
          co_return;
        }
        stream.expires_never();
        auto session = std::make_shared<WsSession>(stream.release_socket(), ctx, ip);
        co_await WsSession::run(session, std::move(req));
        co_return;
      }

      Response res;
      if (path.rfind("/api/", 0) == 0) {
        std::string host(req[http::field::host]);
        bool hostOk = !host.empty() && host.size() < 256 &&
                      host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]") ==
                          std::string::npos;
        std::string base = "http://" + (hostOk ? host : std::string("localhost"));
        HttpReply r = co_await asio::co_spawn(
            ctx.hub_ioc, call_hub(ctx, req.method(), path, req.body(), ip, base), use_awaitable);
        res = make_response(req, r.status, std::move(r.body), r.content_type);
        res.set(http::field::cache_control, "no-store");
      } else if (req.method() == http::verb::get || req.method() == http::verb::head) {
        res = serve_static(ctx, req);
      } else {
        res = json_error(req, 405, "bad-request", "method not allowed");
      }
      bool keep = res.keep_alive();
      co_await http::async_write(stream, res, use_awaitable);
      if (!keep) break;
    }
  } catch (const boost::system::system_error& e) {
    if (e.code() == http::error::body_limit) {
      Request dummy;
      beast::error_code ec;
      http::write(stream, json_error(dummy, 413, "bad-request", "request body too large"), ec);
    }
  } catch (const std::exception&) {
  }
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

awaitable<void> listen(tcp::acceptor& acceptor, Context& ctx) {
  for (;;) {
    tcp::socket socket = co_await acceptor.async_accept(asio::make_strand(acceptor.get_executor()), use_awaitable);
    auto ex = socket.get_executor();
    asio::co_spawn(ex, serve_http(std::move(socket), ctx), asio::detached);
  }
}

}  // namespace

int run_server(const ServerOptions& o) {
  // Each connection is a file descriptor: allow as many as the system lets us.
  rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  std::error_code fsError;
  std::filesystem::create_directories(o.data_dir, fsError);
  if (fsError) {
    std::cerr << "makruk serve: cannot create data folder '" << o.data_dir << "': " << fsError.message() << "\n";
    return 1;
  }
  std::unique_ptr<Store> store;
  try {
    store = open_sqlite_store((std::filesystem::path(o.data_dir) / "makruk.db").string());
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: " << e.what() << "\n";
    return 1;
  }

  asio::io_context hub_ioc(1);
  asio::io_context net_ioc(o.threads);
  auto hub_work = asio::make_work_guard(hub_ioc);
  Hub hub(
      *store, [&hub_ioc](std::function<void()> f) { asio::post(hub_ioc, std::move(f)); },
      [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
      },
      o.cpu_threads);
  try {
    hub.load();
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: cannot load the database: " << e.what() << "\n";
    return 1;
  }
  if (o.test_clock) hub.enable_test_clock();

  // Web Push: the VAPID key lives in the data folder; deliveries run on the
  // sender's thread, and a gone subscription is dropped on the hub's.
  std::unique_ptr<webpush::Sender> sender;
  try {
    webpush::KeyPair vapid = webpush::load_or_create_vapid(o.data_dir);
    std::string publicKey = webpush::b64url_encode(vapid.public_raw());
    webpush::SenderOptions so;
    so.subject = o.push_subject;
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
  Context ctx{hub_ioc, hub, o.web_dir};

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
  asio::co_spawn(net_ioc, listen(acceptor, ctx), asio::detached);

  asio::signal_set signals(net_ioc, SIGINT, SIGTERM);
  signals.async_wait([&](beast::error_code, int) {
    net_ioc.stop();
    hub_work.reset();
    hub_ioc.stop();
  });

  std::cout << "makruk serve: http://" << (o.address == "0.0.0.0" ? "localhost" : o.address) << ":"
            << acceptor.local_endpoint().port() << " (data in " << o.data_dir << ", " << hub.party_count()
            << " parties loaded)" << std::endl;
  std::thread hub_thread([&] { hub_ioc.run(); });
  std::vector<std::thread> net_threads;
  for (int i = 1; i < o.threads; ++i) net_threads.emplace_back([&] { net_ioc.run(); });
  net_ioc.run();
  for (auto& t : net_threads) t.join();
  hub_work.reset();
  hub_ioc.stop();
  hub_thread.join();
  sender.reset();  // before the hub it posts to
  return 0;
}

}  // namespace makruk::server
