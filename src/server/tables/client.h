// A WebSocket connection as the tables and the lobby see it: what they send
// it, and their state of it. The network layer makes them (net/ws_session).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

namespace makruk::server {

// A WebSocket connection as the hub or the lobby sees it. send() and close()
// may be called from any thread; the connection queues the text for its own
// writer.
class Client {
 public:
  virtual ~Client() = default;
  virtual void send(std::shared_ptr<const std::string> text) = 0;
  // Ends a connection that abuses the server: what was sent before is still
  // delivered (within a short grace), then a close frame.
  virtual void close() = 0;

  // Set (on the hub's executor) by the first hello that joins a table; the
  // network layer reads it to close connections that never say hello.
  std::atomic<bool> greeted{false};

  // A message at `now` within the connection's rate: a bucket of 20 tokens
  // refilled at 20 a second. When not, it counts a strike; abusive() after
  // too many in a row (the connection is then closed).
  bool within_rate(int64_t now) {
    tokens = std::min(20.0, tokens + double(now - last_refill) * 0.02);
    last_refill = now;
    if (tokens < 1) {
      ++strikes;
      return false;
    }
    tokens -= 1;
    strikes = std::max(0, strikes - 1);  // only abuse that goes on closes the connection
    return true;
  }
  bool abusive() const { return strikes > 50; }

  // The listener's state of it, touched only on the listener's executor
  // (the hub's or the lobby's); `ip` is set before it is heard.
  std::string ip;  // the client's address, for the per-address limits
  std::string code;
  int seat = -1;  // -1: spectator
  std::string name;  // a spectator's name, if it gave one
  uint64_t id = 0;   // given by its listener on the first message (the matchmaker's key)
  int64_t last_said = -1000000;  // when it last sent a quick message (ms)
  bool joined = false;
  bool events = false;  // after the first state, takes events ("moved") instead of whole states
  double tokens = 20;  // rate limit: tokens refill at 20 a second
  int64_t last_refill = 0;
  int strikes = 0;  // messages refused for rate; too many closes the connection
  size_t waiting = 0;  // its messages waiting for its table's action being stored
  std::string opening;  // the table a message of its waits for (being read): its next messages follow
  std::deque<std::string> held;  // those next messages, meanwhile
  bool gone = false;    // closed (what waited for its table is dropped)
};

// Who hears a connection's messages, in order, on one executor: the hub
// holding the table it opened at, or the lobby (a connection that opened at
// none: a seeker's).
class Listener {
 public:
  virtual ~Listener() = default;
  virtual void on_message(const std::shared_ptr<Client>& c, const std::string& text) = 0;
  virtual void on_close(const std::shared_ptr<Client>& c) = 0;
};

}  // namespace makruk::server
