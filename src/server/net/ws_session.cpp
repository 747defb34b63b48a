// A WebSocket session: its messages go to the hub in order, the hub's come
// back through a bounded queue, and pings, the hello deadline and polite
// closes keep connections honest.
#include <boost/json.hpp>
#include <deque>

#include "server/net/net_detail.h"
#include "server/text.h"

namespace makruk::server::net_detail {

namespace json = boost::json;

class WsSession : public Client, public std::enable_shared_from_this<WsSession> {
 public:
  // Its messages go to one listener: the hub holding the table it names on
  // opening (/ws?code=CODE), or else the one holding the table its first
  // message (a hello) names, or else the lobby, which finds opponents, until
  // it says hello at a table (a connection at a hub may still join any
  // table later: the hubs tell each other, as instances do).
  WsSession(tcp::socket&& socket, Context& ctx, Hearer at, std::string client, ConnectionGate::Ticket ticket)
      : ws_(std::move(socket)), ctx_(ctx), at_(at), hello_timer_(ws_.get_executor()), close_timer_(ws_.get_executor()),
        ticket_(std::move(ticket)) {
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
        std::string text = beast::buffers_to_string(buffer.data());
        if (!self->at_.listener || self->at_.listener == self->ctx_.lobby.listener) {
          // A connection at no table is a seeker's, which the lobby hears,
          // until it says hello at a table: that table's hub hears it from
          // then on (and the lobby still hears it close).
          const std::string code = hello_code(text);
          if (!code.empty()) {
            self->lobby_heard_ = self->at_.listener != nullptr;
            self->at_ = self->ctx_.hub_for(code).hearer();
          } else if (!self->at_.listener) {
            self->at_ = self->ctx_.lobby;
          }
        }
        // A client whose messages pile up at its listener is flooding it:
        // what it was given is answered, then the connection ends.
        if (self->unheard_.fetch_add(1) >= MAX_AT_HUB) {
          flooded = true;
          asio::post(*self->at_.ioc, [self] { self->close(); });
          continue;
        }
        asio::post(*self->at_.ioc, [self, text = std::move(text)] {
          self->at_.listener->on_message(self, text);
          self->unheard_.fetch_sub(1);
        });
      }
    } catch (const std::exception&) {
      // closed, timed out, or a message over the size limit
    }
    self->do_close();
    self->hello_timer_.cancel();
    self->close_timer_.cancel();
    self->ctx_.sessions.remove(self.get());
    if (self->at_.listener) asio::post(*self->at_.ioc, [self] { self->at_.listener->on_close(self); });  // else it told none
    if (self->lobby_heard_) asio::post(self->ctx_.lobby_ioc(), [self] { self->ctx_.lobby.listener->on_close(self); });
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
  Hearer at_;  // chosen by the first message at the latest (read on the session's strand only)
  bool lobby_heard_ = false;  // the lobby heard it before it said hello at a table
  asio::steady_timer hello_timer_;
  asio::steady_timer close_timer_;
  ConnectionGate::Ticket ticket_;  // this connection's place, freed with the session
  std::deque<std::shared_ptr<const std::string>> queue_;
  size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool closed_ = false;
  bool closing_ = false;  // the hub asked to end it; the queue drains first
  websocket::close_reason close_reason_;
  std::atomic<int> unheard_{0};  // messages posted to its listener and not yet heard
};

awaitable<void> run_websocket(tcp::socket socket, Context& ctx, std::string ip, ConnectionGate::Ticket ticket,
                              Request req) {
  const std::string_view target = req.target();
  const size_t q = target.find('?');
  const std::string code = q == std::string_view::npos ? "" : query_param(target.substr(q + 1), "code");
  const Hearer at = code.empty() ? Hearer{} : ctx.hub_for(code).hearer();
  auto session = std::make_shared<WsSession>(std::move(socket), ctx, at, std::move(ip), std::move(ticket));
  co_await WsSession::run(session, std::move(req));
}

void go_away(WsSession& session) { session.go_away(); }

}  // namespace makruk::server::net_detail
