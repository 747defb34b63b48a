// Helpers for the integration tests: a `makruk serve` process on a free
// loopback port, HTTP requests, a WebSocket client, and a raw TCP connection
// for the tests that speak malformed or hostile HTTP.
//
// Every wait here is bounded: requests, handshakes, reads and writes give up
// after their timeout instead of hanging a test when the server misbehaves.
// Client sockets may be bound to another loopback address (127.0.0.2, ...) to
// act as another client address; nothing here talks beyond loopback.
#pragma once

#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/beast/http/verb.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace boost::asio {}
namespace boost::beast::websocket {}
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace json = boost::json;

namespace makruk::testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

inline int64_t ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t).count();
}

inline milliseconds ms_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? left : 0ms;
}

// Lets this process open as many files (sockets) as its hard limit allows.
inline void raise_file_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

// Runs a shell command: its exit status (-1 when it did not exit by itself)
// and all it wrote, both streams.
inline std::pair<int, std::string> shell(const std::string& command) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The TCP port a process listens on, read from /proc (0 when none is found).
inline uint16_t listening_port(pid_t pid) {
  std::set<std::string> inodes;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::string target = std::filesystem::read_symlink(e.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the column names
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      if (state == "0A" && inodes.count(inode)) return uint16_t(std::stoul(local.substr(local.rfind(':') + 1), nullptr, 16));
    }
  }
  return 0;
}

// The server binary the tests start: the one built beside them, or
// MAKRUK_TEST_BINARY (the test command runs these clients, built once, against
// the sanitizer build's server too).
inline std::string makruk_binary() {
  const char* other = std::getenv("MAKRUK_TEST_BINARY");
  return other && *other ? other : MAKRUK_BINARY;
}

// How the server process is started, besides its command-line flags.
struct ServerSpawn {
  std::string web = "/nonexistent";  // --web
  rlim_t max_files = 0;              // RLIMIT_NOFILE (soft and hard) in the child; 0 keeps ours
};

// A server process on a free port, with a data folder that outlives restarts.
// Its first line of output gives the port; the rest of its output is read
// and dropped, so the server never writes into a full or closed pipe.
class Server {
 public:
  explicit Server(std::filesystem::path data, std::vector<std::string> extra = {}, ServerSpawn spawn = {})
      : data_(std::move(data)), extra_(std::move(extra)), spawn_(std::move(spawn)) {
    start();
  }
  ~Server() { kill_hard(); }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start() {
    if (drain_.joinable()) kill_hard();  // one process at a time
    port_ = 0;
    status_ = -1;
    std::vector<std::string> args = {"makruk", "serve", "--address", "127.0.0.1", "--port", "0",
                                     "--data", data_.string(), "--web", spawn_.web};
    args.insert(args.end(), extra_.begin(), extra_.end());
    // The same tests against a server whose tables are shared among several
    // hub threads (ctest runs a suite again so).
    if (const char* hubs = std::getenv("MAKRUK_TEST_HUB_THREADS");
        hubs && *hubs && std::find(args.begin(), args.end(), "--hub-threads") == args.end()) {
      args.push_back("--hub-threads");
      args.push_back(hubs);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string binary = makruk_binary();
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    pid_ = fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {  // only async-signal-safe calls until exec
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
      dup2(out[1], STDOUT_FILENO);
      close_range(3, ~0U, 0);  // no inherited test sockets in the server
      if (spawn_.max_files) {
        rlimit r{spawn_.max_files, spawn_.max_files};
        setrlimit(RLIMIT_NOFILE, &r);
      }
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    const int fd = out[0];
    std::string line;
    bool found = false;
    const auto deadline = Clock::now() + 20s;
    std::string pending;
    for (int lines = 0; lines < 50 && !found && Clock::now() < deadline;) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, int(ms_left(deadline).count())) <= 0) break;
      char buf[512];
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) break;
      pending.append(buf, size_t(n));
      for (size_t eol; !found && (eol = pending.find('\n')) != std::string::npos; ++lines) {
        line = pending.substr(0, eol);
        pending.erase(0, eol + 1);
        found = line.find("://") != std::string::npos;
      }
    }
    if (found) {
      size_t at = line.find("127.0.0.1:");
      if (at != std::string::npos) port_ = uint16_t(std::atoi(line.c_str() + at + 10));
      if (port_ == 0) port_ = listening_port(pid_);
    }
    drain_ = std::thread([fd] {
      char buf[4096];
      while (read(fd, buf, sizeof buf) > 0) {
      }
      close(fd);
    });
    ASSERT_TRUE(found) << "server did not start (see its messages above)";
    ASSERT_NE(port_, 0) << "no port in: " << line;
  }

  void kill_hard() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (drain_.joinable()) drain_.join();
  }

  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  bool started() const { return port_ != 0; }

  // True while the process runs (it is reaped here if it has ended).
  bool alive() {
    if (pid_ <= 0) return false;
    int st = 0;
    pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == 0) return true;
    if (r == pid_) status_ = st;
    pid_ = -1;
    return false;
  }
  // How the process ended, in words (after alive() said false).
  std::string how_it_ended() const {
    if (status_ < 0) return "not started, or still running";
    if (WIFSIGNALED(status_)) return "killed by signal " + std::to_string(WTERMSIG(status_));
    return "exited with status " + std::to_string(WEXITSTATUS(status_));
  }
  // The resident memory of the process in KiB (0 when unknown).
  long rss_kb() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    return 0;
  }

 private:
  std::filesystem::path data_;
  std::vector<std::string> extra_;
  ServerSpawn spawn_;
  pid_t pid_ = -1;
  int status_ = -1;
  uint16_t port_ = 0;
  std::thread drain_;
};

struct Reply {
  int status = 0;  // 0: no answer (refused, closed or timed out)
  json::value body;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string text;                            // the body as sent

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct RequestOptions {
  std::string from;                                  // local address to send from; empty: any
  std::string content_type = "application/json";     // empty: no Content-Type header
  std::vector<std::pair<std::string, std::string>> headers;  // more headers; a Host here replaces ours
  milliseconds timeout = 10s;                        // for the whole exchange
};

// One HTTP/1.1 request on a fresh connection to 127.0.0.1:port.
Reply request(uint16_t port, http::verb method, const std::string& target, const std::string& body = "",
              const RequestOptions& o = {});

inline std::string str(const json::value& v, const char* key) { return std::string(v.at(key).as_string()); }

// A figure of the server's /metrics (Prometheus' text format), or "".
inline std::string metric(const std::string& text, const std::string& name) {
  const std::string line = "\nmakruk_" + name + " ";
  const size_t at = text.find(line);
  if (at == std::string::npos) return "";
  const size_t from = at + line.size();
  return text.substr(from, text.find('\n', from) - from);
}

// A field of a JSON object as a string ("" when absent or not a string).
inline std::string field(const json::value& v, const char* key) {
  if (!v.is_object()) return "";
  const json::value* f = v.as_object().if_contains(key);
  return f && f->is_string() ? std::string(f->as_string()) : std::string();
}

// A free TCP port on 127.0.0.1 (bound once and let go: for a process the test
// starts, such as nginx, PostgreSQL or Redis).
uint16_t free_port();

// A WebSocket over TLS to 127.0.0.1:port, the server's certificate checked
// against the file `ca`; every step at most 10 s.
class TlsWsClient {
 public:
  TlsWsClient(uint16_t port, const std::string& ca);
  ~TlsWsClient();
  TlsWsClient(const TlsWsClient&) = delete;
  TlsWsClient& operator=(const TlsWsClient&) = delete;

  // The TLS and WebSocket handshakes succeeded.
  bool ok() const;
  bool send(const json::object& m);
  // The next message of type `t` (others skipped), or null.
  json::value wait_for(const std::string& t);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct WsOptions {
  std::string from;    // local address to connect from; empty: any
  std::string origin;  // sent as the Origin header when not empty
  std::string host;    // sent as the Host header when not empty (else 127.0.0.1:PORT)
  milliseconds timeout = 10s;  // to connect and finish the handshake
  std::string path = "/ws";    // the upgrade's target (/ws?code=CODE names the table to come)
};

// A WebSocket client on /ws. It reads continuously while the test waits on
// it (next, wait_for, send), so a message that is not waited for is kept.
// (Beast, which it is made with, is in server_process.cpp only.)
class WsClient {
 public:
  explicit WsClient(uint16_t port, const WsOptions& o = {});
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  // The handshake succeeded.
  bool connected() const;
  // The HTTP status of the server's answer to the upgrade (it says why one
  // was refused); 0 when there was none.
  int handshake_status() const;
  const std::string& error() const;

  bool send(const json::object& o) { return send_raw(json::serialize(o)); }
  // Sends one text message; false when the connection is gone or the write
  // did not finish within `timeout`.
  bool send_raw(const std::string& s, milliseconds timeout = 10s);

  // The next message, or null after the timeout or once the connection closed
  // and every message before the close was taken.
  json::value next(milliseconds timeout = 5s);

  // Skips messages until one of type t (and matching `pred`) arrives.
  json::value wait_for(const std::string& t, std::function<bool(const json::value&)> pred = {},
                       milliseconds timeout = 10s);

  // Every message that arrives until none has come for `quiet`, or `limit`
  // has passed.
  std::vector<json::value> drain(milliseconds quiet, milliseconds limit = 10s);

  // Waits until the server closes the connection; false on timeout.
  bool wait_closed(milliseconds timeout);
  bool closed() const;
  // Forgets the messages received and not yet taken.
  void discard();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Both players say hello and are welcomed.
inline void both_hello(WsClient& host, WsClient& guest, const std::string& code, const std::string& hostToken,
                       const std::string& guestToken) {
  host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
  guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
  host.wait_for("welcome");
  guest.wait_for("welcome");
}

inline std::function<bool(const json::value&)> at_version(int64_t v) {
  return [v](const json::value& m) { return m.at("v").as_int64() == v; };
}

// A plain TCP connection to 127.0.0.1 (optionally from another loopback
// address), for bytes no well-behaved client would send.
class RawConn {
 public:
  RawConn() = default;
  // Connects, waiting at most `timeout`; see connected().
  explicit RawConn(uint16_t port, const std::string& from = "", int rcvbuf = 0, int mss = 0,
                   milliseconds timeout = 5s) {
    begin(port, from, rcvbuf, mss);
    wait_connected(timeout);
  }
  ~RawConn() { close(); }
  RawConn(RawConn&& o) noexcept { *this = std::move(o); }
  RawConn& operator=(RawConn&& o) noexcept {
    if (this != &o) {
      close();
      fd_ = std::exchange(o.fd_, -1);
      connected_ = o.connected_;
      peer_closed_ = o.peer_closed_;
    }
    return *this;
  }

  // Starts connecting without waiting (to open many at once). A small
  // `rcvbuf` (SO_RCVBUF) and `mss` (TCP_MAXSEG, the segment size announced to
  // the server) make a client that the kernel buffers little for, like one
  // on a slow link.
  bool begin(uint16_t port, const std::string& from = "", int rcvbuf = 0, int mss = 0) {
    close();
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return false;
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (mss > 0) ::setsockopt(fd_, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss);
    if (!from.empty()) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, from.c_str(), &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        close();
        return false;
      }
    }
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int r = ::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to);
    if (r == 0) connected_ = true;
    else if (errno != EINPROGRESS) close();
    return fd_ >= 0;
  }
  // Finishes a connection begun with begin(); false when it failed.
  bool wait_connected(milliseconds timeout) {
    if (fd_ < 0) return false;
    if (connected_) return true;
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, int(timeout.count())) <= 0) return false;
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
    connected_ = err == 0;
    return connected_;
  }
  bool connected() const { return fd_ >= 0 && connected_; }
  int fd() const { return fd_; }

  // Sends all of `data`; false when the connection failed or stalled.
  bool send(std::string_view data, milliseconds timeout = 5s) {
    if (!connected()) return false;
    auto deadline = Clock::now() + timeout;
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n > 0) {
        data.remove_prefix(size_t(n));
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
      pollfd p{fd_, POLLOUT, 0};
      if (Clock::now() >= deadline || ::poll(&p, 1, int(ms_left(deadline).count())) <= 0) return false;
    }
    return true;
  }

  // Reads until the peer closes or `timeout` passes, or (when `until` is not
  // empty) the data read so far contains it. At most 64 MiB.
  std::string read(milliseconds timeout, const std::string& until = "") {
    std::string out;
    if (fd_ < 0) return out;
    auto deadline = Clock::now() + timeout;
    while (!peer_closed_ && out.size() < (64u << 20)) {
      if (!until.empty() && out.find(until) != std::string::npos) break;
      char buf[65536];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) {
        out.append(buf, size_t(n));
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        peer_closed_ = true;  // end of stream, or reset
        break;
      }
      pollfd p{fd_, POLLIN, 0};
      if (Clock::now() >= deadline || ::poll(&p, 1, int(ms_left(deadline).count())) <= 0) break;
    }
    return out;
  }
  std::string read_until_close(milliseconds timeout) { return read(timeout); }
  // The server ended the connection (seen by a read).
  bool peer_closed() const { return peer_closed_; }
  // Looks, without waiting, whether the server has ended the connection
  // (reading and dropping whatever it sent).
  bool check_closed() {
    read(0ms);
    return peer_closed_;
  }

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    connected_ = false;
    peer_closed_ = false;
  }

 private:
  int fd_ = -1;
  bool connected_ = false, peer_closed_ = false;
};

// Opens `n` connections at once from `from`; each is connected or not (see
// RawConn::connected) after at most `timeout` in all.
inline std::vector<RawConn> open_many(uint16_t port, const std::string& from, size_t n, milliseconds timeout = 10s) {
  std::vector<RawConn> conns(n);
  for (RawConn& c : conns) c.begin(port, from);
  auto deadline = Clock::now() + timeout;
  for (RawConn& c : conns) c.wait_connected(ms_left(deadline));
  return conns;
}

// The HTTP request that upgrades a raw connection to a WebSocket on /ws.
inline std::string ws_upgrade_request(uint16_t port, const std::string& origin = "") {
  std::string r = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                  "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
  if (!origin.empty()) r += "Origin: " + origin + "\r\n";
  return r + "\r\n";
}

// One masked text frame, as a client sends it.
inline std::string ws_text_frame(const std::string& payload) {
  std::string f;
  f += char(0x81);
  const size_t n = payload.size();
  if (n < 126) {
    f += char(0x80 | n);
  } else if (n < 65536) {
    f += char(0x80 | 126);
    f += char(n >> 8), f += char(n & 0xFF);
  } else {
    f += char(0x80 | 127);
    for (int shift = 56; shift >= 0; shift -= 8) f += char((uint64_t(n) >> shift) & 0xFF);
  }
  const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
  for (unsigned char m : mask) f += char(m);
  for (size_t i = 0; i < n; ++i) f += char(payload[i] ^ mask[i % 4]);
  return f;
}

// The opcodes of the complete server frames in `data` (unmasked frames).
inline std::vector<int> ws_opcodes(std::string_view data) {
  std::vector<int> ops;
  size_t i = 0;
  while (i + 2 <= data.size()) {
    const unsigned char b0 = data[i], b1 = data[i + 1];
    uint64_t len = b1 & 0x7F;
    size_t head = 2;
    if (len == 126) {
      if (i + 4 > data.size()) break;
      len = (uint64_t(uint8_t(data[i + 2])) << 8) | uint8_t(data[i + 3]);
      head = 4;
    } else if (len == 127) {
      if (i + 10 > data.size()) break;
      len = 0;
      for (int k = 0; k < 8; ++k) len = (len << 8) | uint8_t(data[i + 2 + k]);
      head = 10;
    }
    if (b1 & 0x80) head += 4;
    if (i + head + len > data.size()) break;
    ops.push_back(b0 & 0x0F);
    i += head + size_t(len);
  }
  return ops;
}

// The opcode of the last complete frame in `data`; -1 if there is none.
inline int last_opcode(std::string_view data) {
  auto ops = ws_opcodes(data);
  return ops.empty() ? -1 : ops.back();
}

}  // namespace makruk::testing
