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

  // Set (on the hub's executor) by the first hello that joins a table, or by
  // a seek; the network layer reads it to close connections that never say
  // who they are.
  std::atomic<bool> greeted{false};

  // A connection's pace: a bucket of 20 messages refilled at 20 a second.
  struct Pace {
    double tokens = 20;
    int64_t last_refill = 0;
    int strikes = 0;  // messages refused in a row, less those let through since
    // A message at `now` within the pace; when not, it counts a strike.
    bool allows(int64_t now) {
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
    bool abusive() const { return strikes > 50; }  // the connection is then closed
  };

  std::string ip;  // the client's address, for the per-address limits (set before it is heard)

  // The lobby's state of it, touched only on the lobby's executor (a
  // connection heard by the lobby may move to a table's hub: each keeps its own).
  uint64_t id = 0;  // given by the lobby on its first message there (the matchmaker's key)
  Pace lobby_pace;

  // The hub's state of it, touched only on the executor of the hub that hears it.
  Pace pace;
  std::string code;
  int seat = -1;  // -1: spectator
  std::string name;  // a spectator's name, if it gave one
  int64_t last_said = -1000000;  // when it last sent a quick message (ms)
  bool joined = false;
  bool events = false;  // after the first state, takes events ("moved") instead of whole states
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
