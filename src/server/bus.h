// The bus between server instances that share one store: an instance that
// changes a table tells the others, and those holding the table read it again
// and tell their own players and spectators. One process alone needs no bus.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace makruk::server {

// A table changed: its game and version now (0 when it has no game), from
// another instance. An empty code means "anything may have changed" (the bus
// was away and messages may be lost): every table in memory is read again.
struct TableChanged {
  std::string code;
  int64_t game = 0;
  int version = 0;
};

class Bus {
 public:
  virtual ~Bus() = default;
  // Tells the other instances (never this one). Does not throw: a message
  // that cannot go is lost, and the others catch up on their next conflict,
  // message or reconnection.
  virtual void publish(const TableChanged& m) = 0;
  // Starts delivering the other instances' messages to `handler`, on the
  // bus's own thread.
  virtual void start(std::function<void(TableChanged)> handler) = 0;
  // Stops delivering: once it returns, the handler is not called again.
  virtual void stop() = 0;
  // Whether the bus answers now (for /readyz).
  virtual bool healthy() = 0;
};

// Redis publish/subscribe at `url` (redis://HOST:PORT). Throws
// std::runtime_error when the URL is malformed or Redis does not answer.
std::unique_ptr<Bus> open_redis_bus(const std::string& url);

}  // namespace makruk::server
