// The network layer: HTTP on Boost.Beast with C++20 coroutines (the
// WebSocket session is in ws_session.cpp, the start-up in serve.cpp).
// Sockets run on the network threads; every hub call runs on the hub's own
// thread, so blocking storage never stalls a socket.
#include "server/net/net_detail.h"

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

namespace makruk::server::net_detail {

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

// What a part's answer came to, as HTTP says it.
int http_status(Outcome o) {
  switch (o) {
    case Outcome::Ok: return 200;
    case Outcome::Created: return 201;
    case Outcome::BadRequest: return 400;
    case Outcome::Unauthorized: return 401;
    case Outcome::Forbidden: return 403;
    case Outcome::NotFound: return 404;
    case Outcome::MethodRefused: return 405;
    case Outcome::Conflict: return 409;
    case Outcome::RateLimited: return 429;
    case Outcome::Unavailable: return 503;
    case Outcome::Internal: return 500;
  }
  return 500;
}

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

// The route table's answer (routes.cpp), made where the route says: on the
// hub's thread or on the community's.
awaitable<Answer> answer_there(Context& ctx, const routes::ApiRequest& r) {
  co_return routes::answer(ctx.hubs.front().parts, r);
}

// The answer of the hub (or the lobby) on `ioc`: asked on its thread, it may
// come later (a request that writes is answered once stored, while the hub
// goes on), and comes back to this connection's. An answer dropped unmade
// (the hub is stopping) is a 503. `r` lives in the caller's frame, which
// waits for the answer.
awaitable<Answer> answer_at(asio::io_context& ioc, routes::Parts& parts, const routes::ApiRequest& r) {
  return asio::async_initiate<decltype(use_awaitable), void(Answer)>(
      [&ioc, &parts, &r](auto handler) {
        using Handler = decltype(handler);
        struct Waiting {
          explicit Waiting(Handler h) : handler(std::move(h)) {}
          ~Waiting() {
            if (!answered.exchange(true)) give(routes::error_body(Outcome::Unavailable, "unavailable", Msg::TablesBusy));
          }
          void give(Answer reply) {
            auto executor = asio::get_associated_executor(handler);
            asio::post(executor, [h = std::move(handler), reply = std::move(reply)]() mutable {
              std::move(h)(std::move(reply));
            });
          }
          Handler handler;
          std::atomic<bool> answered{false};
        };
        auto waiting = std::make_shared<Waiting>(std::move(handler));
        asio::post(ioc, [&parts, &r, waiting] {
          routes::answer(parts, r, [waiting](Answer reply) {
            if (!waiting->answered.exchange(true)) waiting->give(std::move(reply));
          });
        });
      },
      use_awaitable);
}

awaitable<Answer> call_api(Context& ctx, http::verb method, std::string target, std::string body, std::string ip,
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
  switch (routes::runs_on(r)) {
    case routes::Runs::OnCommunity:
      co_return co_await asio::co_spawn(ctx.community_thread, answer_there(ctx, r), use_awaitable);
    case routes::Runs::OnLobby:
      co_return co_await answer_at(ctx.lobby_ioc(), ctx.hubs.front().parts, r);
    case routes::Runs::OnNotices:
      co_return co_await answer_at(*ctx.notices, ctx.hubs.front().parts, r);
    case routes::Runs::OnTournaments:
      co_return co_await answer_at(*ctx.tournaments, ctx.hubs.front().parts, r);
    case routes::Runs::OnHub:
      break;
  }
  // The hub holding the table the request names, or any.
  const std::string code = routes::table_code(r);
  HubShard& hub = code.empty() ? ctx.any_hub() : ctx.hub_for(code);
  co_return co_await answer_at(hub.ioc, hub.parts, r);
}

// The operators' figures: each hub's and the lobby's (on their threads), then the network's.
awaitable<Hub::Figures> hub_figures(Hub& hub) { co_return hub.figures(); }
awaitable<size_t> lobby_seekers(Lobby& lobby) { co_return lobby.seekers(); }
awaitable<Answer> hub_metrics(Context& ctx) {
  std::vector<Hub::Figures> figures;
  for (HubShard& h : ctx.hubs) figures.push_back(co_await asio::co_spawn(h.ioc, hub_figures(h.hub), use_awaitable));
  const size_t seekers = co_await asio::co_spawn(ctx.lobby_ioc(), lobby_seekers(ctx.hubs.front().parts.lobby),
                                                 use_awaitable);
  co_return Hub::metrics(figures, seekers, ctx.writer);
}
// Whether the admin secret came (on the community's thread, which keeps it).
awaitable<std::optional<Answer>> admin_refusal(Context& ctx, std::string authorization, std::string ip) {
  Answer refusal;
  if (ctx.hubs.front().parts.community.admin(authorization, ip, refusal)) co_return std::nullopt;
  co_return refusal;
}

Community::SeatCheck seat_check_through(std::vector<HubShard::Ref> hubs) {
  return [hubs](const std::string& code, const std::string& token,
                const std::string& ip) -> std::variant<RecommendingSeat, Answer> {
    using SeatOrRefusal = std::variant<RecommendingSeat, Answer>;
    auto done = std::make_shared<std::promise<SeatOrRefusal>>();
    auto answer = done->get_future();
    const HubShard::Ref there = hubs.at(shard_of(normalise_code(code), hubs.size()));
    asio::post(*there.ioc, [done, hub = there.hub, code, token, ip] {
      try {
        hub->recommending_seat(code, token, ip, [done](SeatOrRefusal a) { done->set_value(std::move(a)); });
      } catch (...) {
        done->set_exception(std::current_exception());
      }
    });
    try {
      if (answer.wait_for(std::chrono::seconds(5)) == std::future_status::ready) return answer.get();
    } catch (const std::exception&) {
    }
    return routes::error_body(Outcome::Unavailable, "unavailable", Msg::TablesBusy);
  };
}

std::string net_metrics(Context& ctx) {
  MetricsText m;
  m.gauge("connections", "Open connections (HTTP and WebSocket).", ctx.gate.open());
  m.gauge("websockets", "Open WebSocket sessions.", double(ctx.sessions.size()));
  m.gauge("pictures_drawing", "Game pictures being drawn or waiting to be.", ctx.drawing.load());
  m.counter("records_made_total", "Game records made (each version of a game once).", double(ctx.records.made()));
  if (ctx.push) {
    m.gauge("push_pending", "Push deliveries not yet finished (waiting, in flight, or to retry).",
            double(ctx.push->pending()));
    const auto f = ctx.push->figures();
    m.counter("push_delivered_total", "Push deliveries the push service accepted.", double(f.delivered));
    m.counter("push_gone_total", "Push deliveries to a subscription the push service said is gone.", double(f.gone));
    m.counter("push_failed_total", "Push deliveries that failed (every attempt) or were turned away.", double(f.failed));
    m.counter("push_retries_total", "Push attempts made again after one failed.", double(f.retries));
  }
  return m.text();
}

// A game's record, /api/games/ID (JSON) or /api/games/ID.pgn; runs on the
// readers' threads.
awaitable<Answer> read_record(Context& ctx, std::string path, std::string ip) {
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

awaitable<std::variant<GameSnapshot, Answer>> read_snapshot(Context& ctx, std::string id, std::string ip) {
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
  if (auto* refusal = std::get_if<Answer>(&found)) {
    Response res = make_response(req, http_status(refusal->outcome), std::move(refusal->body), refusal->type);
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
    res = make_response(req, http_status(std::get<Answer>(found).outcome), index->body, "text/html; charset=utf-8");
  res.set(http::field::cache_control, "no-cache");
  co_return res;
}

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
        co_await run_websocket(stream.release_socket(), ctx, ip, std::move(ticket), std::move(req));
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
        Answer r = co_await call_api(ctx, http::verb::get, "/readyz", "", ip);
        res = make_response(req, http_status(r.outcome), std::move(r.body), r.type);
        res.set(http::field::cache_control, "no-store");
      } else if (path == "/metrics" && (req.method() == http::verb::get || head)) {
        // For operators: from this machine (not through a proxy that is not
        // declared trusted), or with the admin secret.
        const bool local = Context::plain(client_address(ctx, peer, req)).is_loopback() &&
                           (ctx.trusted(peer) || req.find("X-Forwarded-For") == req.end());
        std::optional<Answer> refused;
        if (!local)
          refused = co_await asio::co_spawn(
              ctx.community_thread, admin_refusal(ctx, std::string(req[http::field::authorization]), ip), use_awaitable);
        Answer r;
        if (refused) {
          r = std::move(*refused);
        } else {
          r = co_await hub_metrics(ctx);
          r.body += net_metrics(ctx);
        }
        res = make_response(req, http_status(r.outcome), std::move(r.body), r.type);
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
          Answer r;
          if (record)
            r = co_await asio::co_spawn(ctx.readers, read_record(ctx, path, ip), use_awaitable);
          else
            r = co_await call_api(ctx, head ? http::verb::get : req.method(), target, req.body(), ip,
                                  std::string(req[http::field::authorization]));
          // A long answer (a game's record) goes out in gzip to a browser that takes it.
          std::optional<std::string> packed;
          if (r.body.size() >= GZIP_MIN_BYTES && accepts(req, "gzip")) packed = gzip(r.body);
          res = make_response(req, http_status(r.outcome), packed ? std::move(*packed) : std::move(r.body), r.type);
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

}  // namespace makruk::server::net_detail
