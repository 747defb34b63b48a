// A TCP proxy on loopback that holds every byte for a fixed time in each
// direction: a database "across a network" for the benchmarks.
// Usage: delay_proxy LISTEN_PORT TARGET_PORT DELAY_MICROSECONDS
// Both ends are 127.0.0.1. What is read is passed on in order, each piece
// DELAY after it arrived (pieces read while others wait do not wait longer).
#include <boost/asio.hpp>
#include <chrono>
#include <cstdio>
#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Piece {
  Clock::time_point due;
  std::vector<char> bytes;
};

// One direction of one connection: reads from `from`, writes to `to` late.
struct Pipe : std::enable_shared_from_this<Pipe> {
  Pipe(std::shared_ptr<tcp::socket> from, std::shared_ptr<tcp::socket> to, Clock::duration delay)
      : from(std::move(from)), to(std::move(to)), delay(delay), timer(this->to->get_executor()) {}
  std::shared_ptr<tcp::socket> from, to;
  Clock::duration delay;
  asio::steady_timer timer;
  std::deque<Piece> waiting;
  bool writing = false;
  std::vector<char> buffer = std::vector<char>(65536);

  void read() {
    from->async_read_some(asio::buffer(buffer), [self = shared_from_this()](boost::system::error_code ec, size_t n) {
      if (ec) return self->close();
      self->waiting.push_back(Piece{Clock::now() + self->delay, {self->buffer.begin(), self->buffer.begin() + long(n)}});
      if (!self->writing) self->write_next();
      self->read();
    });
  }
  void write_next() {
    if (waiting.empty()) {
      writing = false;
      return;
    }
    writing = true;
    timer.expires_at(waiting.front().due);
    timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec) return;
      asio::async_write(*self->to, asio::buffer(self->waiting.front().bytes),
                        [self](boost::system::error_code ec, size_t) {
                          if (ec) return self->close();
                          self->waiting.pop_front();
                          self->write_next();
                        });
    });
  }
  void close() {
    boost::system::error_code ignored;
    from->close(ignored);
    to->close(ignored);
  }
};

void accept(tcp::acceptor& acceptor, tcp::endpoint target, Clock::duration delay) {
  acceptor.async_accept([&acceptor, target, delay](boost::system::error_code ec, tcp::socket socket) {
    if (!ec) {
      auto client = std::make_shared<tcp::socket>(std::move(socket));
      auto server = std::make_shared<tcp::socket>(acceptor.get_executor());
      server->async_connect(target, [client, server, delay](boost::system::error_code ec) {
        if (ec) return;
        client->set_option(tcp::no_delay(true));
        server->set_option(tcp::no_delay(true));
        std::make_shared<Pipe>(client, server, delay)->read();
        std::make_shared<Pipe>(server, client, delay)->read();
      });
    }
    accept(acceptor, target, delay);
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: delay_proxy LISTEN_PORT TARGET_PORT DELAY_MICROSECONDS\n";
    return 2;
  }
  const auto loopback = asio::ip::make_address("127.0.0.1");
  const tcp::endpoint listen(loopback, static_cast<unsigned short>(std::stoi(argv[1])));
  const tcp::endpoint target(loopback, static_cast<unsigned short>(std::stoi(argv[2])));
  const auto delay = std::chrono::microseconds(std::stol(argv[3]));
  asio::io_context io(1);
  tcp::acceptor acceptor(io, listen.protocol());
  acceptor.set_option(asio::socket_base::reuse_address(true));
  acceptor.bind(listen);
  acceptor.listen();
  accept(acceptor, target, delay);
  std::printf("delay_proxy: 127.0.0.1:%s -> 127.0.0.1:%s, %ld us each way\n", argv[1], argv[2], long(delay.count()));
  std::fflush(stdout);
  io.run();
}
