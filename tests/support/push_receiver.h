// A stand-in push service for tests: a small HTTP/1.1 server on 127.0.0.1
// (an ephemeral port) that records every request and answers each from a
// script of replies. Header-only, POSIX sockets, no dependency.
//
//   makruk::testing::PushReceiver rx;
//   rx.enqueue({500, 201});                 // first answer 500, then 201
//   endpoint = rx.url("/push/abc");        // http://127.0.0.1:PORT/push/abc
//   ... send ...
//   ASSERT_TRUE(rx.wait_for(2, std::chrono::seconds(20)));
//   rx.requests()[0].header("authorization")
//
// One thread accepts; each connection gets a thread of its own (so a delayed
// answer holds up nobody else). Every answer has "Connection: close". Bodies
// come with Content-Length or chunked. A request is recorded before it is
// answered, so wait_for() sees it even while its answer is delayed.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <initializer_list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace makruk::testing {

struct PushRequest {
  std::string method, path;
  std::map<std::string, std::string> headers;  // names lower-cased; repeats joined with ", "
  std::string body;

  // The value of a header ("" when absent); `name` in lower case.
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct PushReply {
  int status = 201;
  int retry_after_s = -1;  // sent as Retry-After when >= 0
  int delay_ms = 0;        // wait before answering (timeouts, shutdown in flight)
};

class PushReceiver {
 public:
  PushReceiver() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error("push receiver: socket");
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 64) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ::close(fd_);
      throw std::runtime_error("push receiver: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~PushReceiver() { stop(); }
  PushReceiver(const PushReceiver&) = delete;
  PushReceiver& operator=(const PushReceiver&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:PORT", what a VAPID "aud" for this receiver must be.
  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string url(const std::string& path = "/push") const { return origin() + path; }

  // Answers for the next requests, in order; then the default one.
  void enqueue(PushReply reply) {
    std::lock_guard lock(mu_);
    script_.push_back(reply);
  }
  void enqueue(std::initializer_list<int> statuses) {
    std::lock_guard lock(mu_);
    for (int s : statuses) script_.push_back(PushReply{s});
  }
  void set_default(PushReply reply) {
    std::lock_guard lock(mu_);
    default_ = reply;
  }

  // Waits until at least `n` requests have arrived; false on timeout.
  bool wait_for(size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
  }
  std::vector<PushRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  size_t count() const {
    std::lock_guard lock(mu_);
    return requests_.size();
  }
  void clear() {
    std::lock_guard lock(mu_);
    requests_.clear();
  }

  // Stops accepting, cuts delayed answers short and joins every thread.
  void stop() {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    if (acceptor_.joinable()) acceptor_.join();
    for (auto& t : connections_) t.join();  // the acceptor, which adds to it, is gone
    connections_.clear();
    ::close(fd_);
  }

 private:
  bool stopping() {
    std::lock_guard lock(mu_);
    return stopping_;
  }

  void accept_loop() {
    while (!stopping()) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;  // a short tick, to notice stop()
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) connections_.emplace_back([this, c] { serve(c); });
    }
  }

  // Appends what the peer sent to `buf`; false on close, error, stop or
  // ten idle seconds.
  bool read_more(int c, std::string& buf) {
    for (int idle_ms = 0; idle_ms < 10000 && !stopping(); idle_ms += 50) {
      pollfd p{c, POLLIN, 0};
      const int r = ::poll(&p, 1, 50);
      if (r < 0) return false;
      if (r == 0) continue;
      char chunk[16384];
      const ssize_t n = ::recv(c, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      buf.append(chunk, static_cast<size_t>(n));
      return true;
    }
    return false;
  }

  // The next CRLF-terminated line from buf at `pos`, reading as needed.
  bool read_line(int c, std::string& buf, size_t& pos, std::string& line) {
    size_t eol;
    while ((eol = buf.find("\r\n", pos)) == std::string::npos)
      if (buf.size() - pos > 65536 || !read_more(c, buf)) return false;
    line = buf.substr(pos, eol - pos);
    pos = eol + 2;
    return true;
  }

  bool read_bytes(int c, std::string& buf, size_t& pos, size_t n, std::string& out) {
    while (buf.size() - pos < n)
      if (!read_more(c, buf)) return false;
    out.append(buf, pos, n);
    pos += n;
    return true;
  }

  static std::string lower(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  }
  static std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  }

  bool read_request(int c, PushRequest& req) {
    std::string buf, line;
    size_t pos = 0;
    if (!read_line(c, buf, pos, line)) return false;
    const size_t sp1 = line.find(' '), sp2 = line.find(' ', sp1 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos) return false;
    req.method = line.substr(0, sp1);
    req.path = line.substr(sp1 + 1, sp2 - sp1 - 1);
    while (true) {
      if (!read_line(c, buf, pos, line)) return false;
      if (line.empty()) break;
      const size_t colon = line.find(':');
      if (colon == std::string::npos) return false;
      std::string& v = req.headers[lower(trim(line.substr(0, colon)))];
      v += (v.empty() ? "" : ", ") + trim(line.substr(colon + 1));
    }
    if (lower(req.header("transfer-encoding")).find("chunked") != std::string::npos) {
      while (true) {
        if (!read_line(c, buf, pos, line)) return false;
        size_t size = 0;
        try {
          size = std::stoul(line, nullptr, 16);
        } catch (...) {
          return false;
        }
        if (size == 0) break;
        std::string crlf;
        if (!read_bytes(c, buf, pos, size, req.body) || !read_bytes(c, buf, pos, 2, crlf)) return false;
      }
      do {  // trailers, up to the empty line
        if (!read_line(c, buf, pos, line)) return false;
      } while (!line.empty());
    } else if (const std::string cl = req.header("content-length"); !cl.empty()) {
      size_t n = 0;
      try {
        n = std::stoul(cl);
      } catch (...) {
        return false;
      }
      if (n > (64u << 20) || !read_bytes(c, buf, pos, n, req.body)) return false;
    }
    return true;
  }

  static const char* reason(int status) {
    switch (status) {
      case 200: return "OK";
      case 201: return "Created";
      case 202: return "Accepted";
      case 400: return "Bad Request";
      case 401: return "Unauthorized";
      case 403: return "Forbidden";
      case 404: return "Not Found";
      case 410: return "Gone";
      case 413: return "Payload Too Large";
      case 429: return "Too Many Requests";
      case 500: return "Internal Server Error";
      case 502: return "Bad Gateway";
      case 503: return "Service Unavailable";
      default: return "Status";
    }
  }

  void serve(int c) {
    PushRequest req;
    if (read_request(c, req)) {
      PushReply reply;
      {
        std::unique_lock lock(mu_);
        requests_.push_back(req);
        if (!script_.empty()) {
          reply = script_.front();
          script_.pop_front();
        } else {
          reply = default_;
        }
        cv_.notify_all();
        if (reply.delay_ms > 0)
          cv_.wait_for(lock, std::chrono::milliseconds(reply.delay_ms), [&] { return stopping_; });
      }
      std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " + reason(reply.status) + "\r\n";
      if (reply.retry_after_s >= 0) out += "Retry-After: " + std::to_string(reply.retry_after_s) + "\r\n";
      out += "Content-Length: 0\r\nConnection: close\r\n\r\n";
      for (size_t sent = 0; sent < out.size();) {
        // MSG_NOSIGNAL: the client may be gone (timeouts), no SIGPIPE.
        const ssize_t n = ::send(c, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
    }
    ::shutdown(c, SHUT_WR);
    ::close(c);
  }

  int fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  std::vector<std::thread> connections_;  // touched by the acceptor, then stop()

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::deque<PushReply> script_;
  PushReply default_;
  std::vector<PushRequest> requests_;
};

}  // namespace makruk::testing
