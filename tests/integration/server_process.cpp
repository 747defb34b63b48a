// The integration tests' HTTP requests and WebSocket clients (server_process.h),
// made with Beast: compiled once for every integration test, whose own files
// then need none of Beast's headers.
#include "server_process.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>

namespace makruk::testing {

using tcp = asio::ip::tcp;

Reply request(uint16_t port, http::verb method, const std::string& target, const std::string& body,
              const RequestOptions& o) {
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  boost::system::error_code ec;
  if (!o.from.empty()) {
    stream.socket().open(tcp::v4(), ec);
    if (!ec) stream.socket().bind(tcp::endpoint(asio::ip::make_address(o.from), 0), ec);
    if (ec) return {0, json::value("cannot bind " + o.from + ": " + ec.message()), {}, ""};
  }
  http::request<http::string_body> req{method, target, 11};
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  if (!o.content_type.empty()) req.set(http::field::content_type, o.content_type);
  for (const auto& [name, value] : o.headers) req.set(name, value);
  req.body() = body;
  req.prepare_payload();
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  if (method == http::verb::head) parser.skip(true);
  bool done = false;
  stream.expires_after(o.timeout);
  stream.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), [&](boost::system::error_code e) {
    if (e) {
      ec = e;
      done = true;
      return;
    }
    http::async_write(stream, req, [&](boost::system::error_code e, size_t) {
      if (e) {
        ec = e;
        done = true;
        return;
      }
      http::async_read(stream, buffer, parser, [&](boost::system::error_code e, size_t) {
        ec = e;
        done = true;
      });
    });
  });
  ioc.run_for(o.timeout + 1s);  // the stream's own expiry ends it first
  if (!done || ec) return {0, json::value(done ? ec.message() : "timed out"), {}, ""};
  auto res = parser.release();
  Reply r;
  r.status = int(res.result_int());
  r.text = res.body();
  for (const auto& f : res) {
    std::string name(f.name_string());
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    std::string& v = r.headers[name];
    v += (v.empty() ? "" : ", ") + std::string(f.value());
  }
  boost::system::error_code jec;
  json::value v = json::parse(r.text, jec);
  r.body = jec ? json::value(r.text) : v;
  return r;
}

struct WsClient::Impl {
  asio::io_context ioc;
  websocket::stream<beast::tcp_stream> ws{ioc};
  websocket::response_type response;
  beast::flat_buffer rbuf;
  std::deque<std::string> inbox;
  std::string error;
  bool connected = false, closed = false, write_failed = false;

  void read_loop() {
    ws.async_read(rbuf, [this](boost::system::error_code ec, size_t) {
      if (ec) {
        closed = true;
        return;
      }
      inbox.push_back(beast::buffers_to_string(rbuf.data()));
      rbuf.consume(rbuf.size());
      read_loop();
    });
  }
  void run_until(const std::function<bool()>& done, milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (!done() && Clock::now() < deadline) {
      ioc.restart();
      ioc.run_one_for(ms_left(deadline));
    }
  }
};

WsClient::WsClient(uint16_t port, const WsOptions& o) : impl_(std::make_unique<Impl>()) {
  Impl& c = *impl_;
  auto& lowest = beast::get_lowest_layer(c.ws);
  boost::system::error_code ec;
  if (!o.from.empty()) {
    lowest.socket().open(tcp::v4(), ec);
    if (!ec) lowest.socket().bind(tcp::endpoint(asio::ip::make_address(o.from), 0), ec);
    if (ec) {
      c.error = "cannot bind " + o.from + ": " + ec.message();
      c.closed = true;
      return;
    }
  }
  if (!o.origin.empty())
    c.ws.set_option(websocket::stream_base::decorator(
        [origin = o.origin](websocket::request_type& req) { req.set(http::field::origin, origin); }));
  bool done = false;
  lowest.expires_after(o.timeout);
  lowest.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), [&](boost::system::error_code e) {
    if (e) {
      ec = e;
      done = true;
      return;
    }
    c.ws.async_handshake(c.response, o.host.empty() ? "127.0.0.1:" + std::to_string(port) : o.host, o.path,
                         [&](boost::system::error_code e) {
                           ec = e;
                           done = true;
                         });
  });
  c.ioc.run_for(o.timeout + 1s);
  lowest.expires_never();
  if (!done || ec) {
    c.error = done ? ec.message() : "timed out";
    c.closed = true;
    return;
  }
  c.connected = true;
  c.read_loop();
}

WsClient::~WsClient() {
  boost::system::error_code ec;
  beast::get_lowest_layer(impl_->ws).socket().close(ec);
}

bool WsClient::connected() const { return impl_->connected; }
int WsClient::handshake_status() const { return int(impl_->response.result_int()); }
const std::string& WsClient::error() const { return impl_->error; }
bool WsClient::closed() const { return impl_->closed; }
void WsClient::discard() { impl_->inbox.clear(); }

bool WsClient::send_raw(const std::string& s, milliseconds timeout) {
  Impl& c = *impl_;
  if (!c.connected || c.closed || c.write_failed) return false;
  auto text = std::make_shared<std::string>(s);
  bool done = false;
  boost::system::error_code ec;
  c.ws.text(true);
  c.ws.async_write(asio::buffer(*text), [&, text](boost::system::error_code e, size_t) {
    ec = e;
    done = true;
  });
  c.run_until([&] { return done; }, timeout);
  if (!done) {  // stuck: give the connection up
    c.write_failed = true;
    boost::system::error_code ignored;
    beast::get_lowest_layer(c.ws).socket().close(ignored);
    c.run_until([&] { return done; }, 5s);
    c.closed = true;
    return false;
  }
  if (ec) c.write_failed = true;
  return !ec;
}

json::value WsClient::next(milliseconds timeout) {
  Impl& c = *impl_;
  c.run_until([&] { return !c.inbox.empty() || c.closed; }, timeout);
  if (c.inbox.empty()) return nullptr;
  std::string text = std::move(c.inbox.front());
  c.inbox.pop_front();
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  return ec ? json::value(text) : v;
}

json::value WsClient::wait_for(const std::string& t, std::function<bool(const json::value&)> pred,
                               milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    json::value m = next(ms_left(deadline));
    if (m.is_null()) break;
    if (field(m, "t") == t && (!pred || pred(m))) return m;
  }
  ADD_FAILURE() << "no '" << t << "' message";
  return nullptr;
}

std::vector<json::value> WsClient::drain(milliseconds quiet, milliseconds limit) {
  std::vector<json::value> out;
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    json::value m = next(std::min(quiet, ms_left(deadline)));
    if (m.is_null()) break;
    out.push_back(std::move(m));
  }
  return out;
}

bool WsClient::wait_closed(milliseconds timeout) {
  Impl& c = *impl_;
  c.run_until([&] { return c.closed; }, timeout);
  return c.closed;
}

uint16_t free_port() {
  asio::io_context ioc;
  tcp::acceptor a(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

struct TlsWsClient::Impl {
  asio::io_context ioc;
  asio::ssl::context ctx{asio::ssl::context::tls_client};
  websocket::stream<beast::ssl_stream<beast::tcp_stream>> ws{ioc, ctx};
  bool ok = false;

  // Starts an operation and runs it to its end, 10 s at most: whether it succeeded.
  template <class Start>
  bool step(Start start) {
    bool finished = false;
    boost::system::error_code ec;
    start([&](boost::system::error_code e, auto&&...) {
      ec = e;
      finished = true;
    });
    ioc.restart();
    ioc.run_for(10s);
    return finished && !ec;
  }
};

TlsWsClient::TlsWsClient(uint16_t port, const std::string& ca) : impl_(std::make_unique<Impl>()) {
  Impl& i = *impl_;
  i.ctx.load_verify_file(ca);
  i.ctx.set_verify_mode(asio::ssl::verify_peer);
  auto& tcp_stream = beast::get_lowest_layer(i.ws);
  tcp_stream.expires_after(10s);
  i.ok = i.step([&](auto done) {
    tcp_stream.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), done);
  });
  i.ok = i.ok && i.step([&](auto done) { i.ws.next_layer().async_handshake(asio::ssl::stream_base::client, done); });
  tcp_stream.expires_never();
  i.ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
  i.ok = i.ok && i.step([&](auto done) { i.ws.async_handshake("127.0.0.1:" + std::to_string(port), "/ws", done); });
}

TlsWsClient::~TlsWsClient() = default;

bool TlsWsClient::ok() const { return impl_->ok; }

bool TlsWsClient::send(const json::object& m) {
  const std::string text = json::serialize(m);
  return impl_->step([&](auto done) { impl_->ws.async_write(asio::buffer(text), done); });
}

json::value TlsWsClient::wait_for(const std::string& t) {
  const auto deadline = Clock::now() + 10s;
  while (Clock::now() < deadline) {
    beast::flat_buffer buf;
    if (!impl_->step([&](auto done) { impl_->ws.async_read(buf, done); })) return nullptr;
    json::value v = json::parse(beast::buffers_to_string(buf.data()));
    if (v.is_object() && v.as_object().contains("t") && v.at("t").as_string() == t) return v;
  }
  return nullptr;
}

}  // namespace makruk::testing
