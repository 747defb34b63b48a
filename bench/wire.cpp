// Bytes on the wire for one game: two WebSocket clients on raw sockets (so that
// every byte received is counted, frame headers included) play a game against
// a running `makruk serve`, with or without permessage-deflate, and report what
// the opponent receives for one move at move 10, 60 and 150, and what the two
// players received in all for the first 60 moves.
//
//   wire --port 8080 [--deflate 1] [--events 1] [--moves 150]
//
// --events 1: the clients take events ("moved") after the first state, as the
// web client does, instead of a whole state for every move.
//
// Moves are random legal moves from a fixed seed; seeds are tried in order until
// a game lasts --moves moves, so a run is repeatable.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

int connect_to(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("connect failed");
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

void send_all(int fd, const std::string& s) {
  for (size_t off = 0; off < s.size();) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) throw std::runtime_error("send failed");
    off += size_t(n);
  }
}

// Reads what is there within `ms`; empty when nothing came.
std::string recv_some(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, ms) <= 0) return "";
  char buf[65536];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n <= 0) throw std::runtime_error("connection closed");
  return std::string(buf, size_t(n));
}

json::object http_post(uint16_t port, const std::string& path, const std::string& body) {
  int fd = connect_to(port);
  send_all(fd, "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
                   std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  std::string got;
  try {
    for (;;) got += recv_some(fd, 5000);
  } catch (const std::exception&) {
  }
  ::close(fd);
  size_t start = got.find("\r\n\r\n");
  if (start == std::string::npos) throw std::runtime_error("no HTTP answer");
  return json::parse(got.substr(start + 4)).as_object();
}

// A WebSocket client that counts every byte it receives.
class Client {
 public:
  Client(uint16_t port, bool deflate) : fd_(connect_to(port)) {
    std::string req =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
    if (deflate) req += "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n";
    send_all(fd_, req + "\r\n");
    std::string got;
    while (got.find("\r\n\r\n") == std::string::npos) got += recv_some(fd_, 5000);
    size_t end = got.find("\r\n\r\n") + 4;
    std::string head = got.substr(0, end);
    if (head.find(" 101 ") == std::string::npos) throw std::runtime_error("no upgrade: " + head);
    deflate_ = head.find("permessage-deflate") != std::string::npos;
    reset_ = head.find("server_no_context_takeover") != std::string::npos;
    wire = got.size();
    buf_ = got.substr(end);
    if (deflate_) inflateInit2(&z_, -15);
  }
  ~Client() {
    if (deflate_) inflateEnd(&z_);
    ::close(fd_);
  }
  bool deflated() const { return deflate_; }

  void send_text(const std::string& text) {
    std::string f(1, char(0x81));
    const size_t n = text.size();
    if (n < 126) {
      f += char(0x80 | n);
    } else {
      f += char(0x80 | 126);
      f += char(n >> 8);
      f += char(n & 0xFF);
    }
    const unsigned char mask[4] = {1, 2, 3, 4};
    for (unsigned char m : mask) f += char(m);
    for (size_t i = 0; i < n; ++i) f += char(text[i] ^ mask[i % 4]);
    send_all(fd_, f);
  }

  // The next text message (decompressed), waiting up to `ms`.
  std::optional<json::object> next(int ms) {
    auto deadline = Clock::now() + std::chrono::milliseconds(ms);
    for (;;) {
      if (auto m = take()) return json::parse(*m).as_object();
      int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
      if (left <= 0) return std::nullopt;
      std::string more = recv_some(fd_, left);
      wire += more.size();
      buf_ += more;
    }
  }
  // The next message of type `t` that satisfies `pred`.
  template <typename Pred>
  json::object wait_for(const std::string& t, Pred pred) {
    for (;;) {
      auto m = next(10000);
      if (!m) throw std::runtime_error("no '" + t + "' message");
      if (m->at("t").as_string() == t && pred(*m)) return *m;
    }
  }

  size_t wire = 0;  // bytes received, the handshake included

 private:
  std::optional<std::string> take() {
    if (buf_.size() < 2) return std::nullopt;
    const unsigned char b0 = buf_[0], b1 = buf_[1];
    uint64_t len = b1 & 0x7F;
    size_t head = 2;
    if (len == 126) {
      if (buf_.size() < 4) return std::nullopt;
      len = (uint64_t(uint8_t(buf_[2])) << 8) | uint8_t(buf_[3]);
      head = 4;
    } else if (len == 127) {
      if (buf_.size() < 10) return std::nullopt;
      len = 0;
      for (int k = 0; k < 8; ++k) len = (len << 8) | uint8_t(buf_[2 + k]);
      head = 10;
    }
    if (buf_.size() < head + len) return std::nullopt;
    std::string payload = buf_.substr(head, size_t(len));
    buf_.erase(0, head + size_t(len));
    if ((b0 & 0x0F) != 1) return take();  // only whole text frames come from the server
    if (!(b0 & 0x40)) return payload;
    payload.append("\x00\x00\xff\xff", 4);
    std::string out;
    z_.next_in = reinterpret_cast<Bytef*>(payload.data());
    z_.avail_in = uInt(payload.size());
    char chunk[16384];
    do {
      z_.next_out = reinterpret_cast<Bytef*>(chunk);
      z_.avail_out = sizeof chunk;
      int rc = inflate(&z_, Z_SYNC_FLUSH);
      if (rc != Z_OK && rc != Z_BUF_ERROR) throw std::runtime_error("inflate failed");
      out.append(chunk, sizeof chunk - z_.avail_out);
    } while (z_.avail_out == 0);
    if (reset_) inflateReset(&z_);
    return out;
  }

  int fd_;
  bool deflate_ = false, reset_ = false;
  std::string buf_;
  z_stream z_{};
};

struct Result {
  int moves = 0;
  std::map<int, size_t> to_opponent;  // move number -> bytes the opponent received for it
  size_t first60 = 0;                 // both players, all bytes, until move 60 was seen
  size_t state_at[3] = {0, 0, 0};     // the state message's text size at moves 10, 60, 150
};

Result play(uint16_t port, bool deflate, bool events, int target, unsigned seed, bool& negotiated) {
  json::object c = http_post(port, "/api/parties", R"({"name":"Host"})");
  std::string code(c.at("code").as_string()), host(c.at("token").as_string());
  json::object j = http_post(port, "/api/parties/" + code + "/join", R"({"name":"Guest"})");
  std::string guest(j.at("token").as_string());
  Client p[2] = {Client(port, deflate), Client(port, deflate)};
  negotiated = p[0].deflated();
  p[0].send_text(json::serialize(json::object{{"t", "hello"}, {"code", code}, {"token", host}, {"events", events}}));
  p[1].send_text(json::serialize(json::object{{"t", "hello"}, {"code", code}, {"token", guest}, {"events", events}}));
  for (auto& c : p) c.wait_for("welcome", [](auto&) { return true; });
  p[0].send_text(R"({"t":"start"})");
  json::object st[2];
  for (int s = 0; s < 2; ++s) st[s] = p[s].wait_for("state", [](auto&) { return true; });
  std::mt19937 rng(seed);
  Result r;
  for (int v = 0; v < target; ++v) {
    json::object& s = st[0];
    const json::array& legal = s.at("legal").as_array();
    if (s.at("result").as_string() != "*" || legal.empty()) break;
    const bool white = s.at("turn").as_string() == "w";
    const int mover = white ? int(s.at("white").as_int64()) : int(s.at("black").as_int64());
    const int other = 1 - mover;
    const size_t before = p[other].wire;
    std::string move(legal[rng() % legal.size()].as_string());
    p[mover].send_text(json::serialize(json::object{{"t", "move"}, {"v", v}, {"move", move}}));
    auto at = [v](const json::object& m) { return m.at("v").as_int64() == v + 1; };
    // An event carries what a move needs: the legal moves, whose turn, the result.
    for (int k = 0; k < 2; ++k) st[k] = p[k].wait_for(events ? "moved" : "state", at);
    r.moves = v + 1;
    r.to_opponent[v + 1] = p[other].wire - before;
    const size_t text = json::serialize(st[0]).size();
    if (v + 1 == 10) r.state_at[0] = text;
    if (v + 1 == 60) {
      r.state_at[1] = text;
      r.first60 = p[0].wire + p[1].wire;
    }
    if (v + 1 == 150) r.state_at[2] = text;
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  uint16_t port = 8080;
  bool deflate = false, events = false;
  int moves = 150;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--port") port = uint16_t(std::stoi(v));
    else if (k == "--deflate") deflate = v != "0";
    else if (k == "--events") events = v != "0";
    else if (k == "--moves") moves = std::stoi(v);
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  for (unsigned seed = 1; seed < 200; ++seed) {
    bool negotiated = false;
    Result r = play(port, deflate, events, moves, seed, negotiated);
    if (r.moves < moves) continue;
    std::cout << "permessage-deflate " << (negotiated ? "on" : "off") << " (asked: " << (deflate ? "yes" : "no")
              << "), " << (events ? "events" : "whole states") << ", seed " << seed << "\n";
    for (int m : {10, 60, 150})
      if (r.to_opponent.count(m))
        std::cout << "move " << m << ": the opponent received " << r.to_opponent[m] << " bytes on the wire (message text "
                  << r.state_at[m == 10 ? 0 : m == 60 ? 1 : 2] << " bytes)\n";
    std::cout << "first 60 moves: " << r.first60 << " bytes received by the two players in all\n";
    return 0;
  }
  std::cerr << "no game lasted " << moves << " moves\n";
  return 1;
}
