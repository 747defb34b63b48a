// A WebSocket session: its messages go to the hub in order, the hub's come
// back through a bounded queue, and pings, the hello deadline and polite
// closes keep connections honest.
#include <boost/json.hpp>
#include <deque>

#include "server/net/net_detail.h"
#include "server/text.h"

namespace makruk::server::net_detail {

namespace json = boost::json;

// The table a hello names ("" for any other message).
std::string hello_code(const std::string& text) {
  boost::system::error_code ec;
  const json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return "";
  const json::object& o = v.as_object();
  const json::value* t = o.if_contains("t");
  const json::value* code = o.if_contains("code");
  if (!t || !t->is_string() || t->as_string() != "hello" || !code || !code->is_string()) return "";
  return std::string(code->as_string());
}

class WsSession : public Client, public std::enable_shared_from_this<WsSession> {
 public:
  // Its messages go to one hub for its whole life: the one holding the
  // table it names on opening (/ws?code=CODE), or else the one holding the
  // table its first message (a hello) names, or else the first, whose lobby
  // finds opponents (it may still join any table later: the hubs tell each
  // other, as instances do).
  WsSession(tcp::socket&& socket, Context& ctx, HubShard* hub, std::string client, ConnectionGate::Ticket ticket)
      : ws_(std::move(socket)), ctx_(ctx), hub_(hub), hello_timer_(ws_.get_executor()), close_timer_(ws_.get_executor()), ticket_(std::move(ticket)) {
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
          asio::post(self->hub_->ioc, [self] { self->close(); });
          continue;
        }
        std::string text = beast::buffers_to_string(buffer.data());
        if (!self->hub_) {
          const std::string code = hello_code(text);
          // The lobby's connections (and any other) to the first hub, whose lobby pairs them.
          self->hub_ = code.empty() ? &self->ctx_.hubs.front() : &self->ctx_.hub_for(code);
        }
        asio::post(self->hub_->ioc, [self, text = std::move(text)] {
          self->hub_->hub.on_message(self, text);
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
    if (self->hub_) asio::post(self->hub_->ioc, [self] { self->hub_->hub.on_close(self); });  // else it told none
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
  HubShard* hub_;  // chosen by the first message at the latest (read on the session's strand only)
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

awaitable<void> run_websocket(tcp::socket socket, Context& ctx, std::string ip, ConnectionGate::Ticket ticket,
                              Request req) {
  const std::string_view target = req.target();
  const size_t q = target.find('?');
  const std::string code = q == std::string_view::npos ? "" : query_param(target.substr(q + 1), "code");
  HubShard* hub = code.empty() ? nullptr : &ctx.hub_for(code);
  auto session = std::make_shared<WsSession>(std::move(socket), ctx, hub, std::move(ip), std::move(ticket));
  co_await WsSession::run(session, std::move(req));
}

void go_away(WsSession& session) { session.go_away(); }

}  // namespace makruk::server::net_detail
