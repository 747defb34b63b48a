// Hostile-client benchmark for `makruk serve`: two players on 127.0.0.1 play
// one live table (about 10 moves a second in all) while a hostile case runs
// from other loopback addresses, and each case reports the time from sending
// a move to the opponent receiving the new state. Each case starts the
// players on a new game (rematching whenever one ends), so that all cases see
// states of the same sizes.
//
//   hostile --port 8080 [--seconds 10] [--case NAME] [--server-pid PID] [--data DIR]
//
// Cases: baseline, ping-burst, idle, slow-readers, many-connections,
// hello-flood, create-flood, cpu-flood, bad-http, picture-flood, long-record (default: all,
// in turn). long-record and picture-flood need the server's data folder
// (--data, its SQLite database): long-record writes a 20,000-ply game there
// and fetches its record (JSON, PGN, picture, page) from four connections in
// a loop; picture-flood writes 180 short games, cycles through 120 of their
// pictures from twelve connections, and has a bystander at another address
// ask for a preview of one of the others every two seconds.
// The case in place N of that list attacks from 127.0.N.2, 127.0.N.3, …, so
// that what one case leaves in the server's per-address counts (open
// connections, tables created in the last minute) does not hold back the
// next. Everything stays on loopback and the program stops by itself: each
// attack runs for the given seconds, and every attacker's loop also stops
// after a fixed number of steps.
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "server/stores/store.h"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

tcp::endpoint g_server;  // the server under test
std::string g_data;      // its data folder (--data), for the long-record case

asio::ip::address loopback(int third, int fourth) {
  return asio::ip::address_v4(asio::ip::address_v4::bytes_type{127, 0, uint8_t(third), uint8_t(fourth)});
}

// The server process: its state letter ('R', 'S', 'Z', …; 0 when gone) and
// the CPU seconds it has used.
char process_state(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t p = s.rfind(')');
  return p == std::string::npos || p + 2 >= s.size() ? 0 : s[p + 2];
}
double cpu_seconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t p = s.rfind(')');
  if (p == std::string::npos) return 0;
  std::istringstream fields(s.substr(p + 2));
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;  // state … cmajflt
  double user = 0, system = 0;
  fields >> user >> system;
  return (user + system) / double(sysconf(_SC_CLK_TCK));
}

// Calls `fn` on `ex` after `delay`.
void later(asio::any_io_executor ex, std::chrono::milliseconds delay, std::function<void()> fn) {
  auto timer = std::make_shared<asio::steady_timer>(ex, delay);
  timer->async_wait([timer, fn = std::move(fn)](beast::error_code ec) {
    if (!ec) fn();
  });
}

// Opens `s` from the address `from` and connects it to the server (5 s at most).
template <class Handler>
void connect_from(beast::tcp_stream& s, const asio::ip::address& from, Handler handler) {
  beast::error_code ec;
  s.socket().open(tcp::v4(), ec);
  if (!ec) {
    // Choose the port at connect time, so that thousands of connections from
    // one address need not each hold a port of their own.
    int one = 1;
    setsockopt(s.socket().native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    s.socket().bind(tcp::endpoint(from, 0), ec);
  }
  if (ec) return asio::post(s.get_executor(), [handler = std::move(handler), ec]() mutable { handler(ec); });
  s.expires_after(5s);
  s.async_connect(g_server, std::move(handler));
}

std::string post_request(const std::string& target, const std::string& body) {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string hello(const std::string& code, const std::string& token = "") {
  json::object o{{"t", "hello"}, {"code", code}};
  if (!token.empty()) o["token"] = token;
  return json::serialize(o);
}

// The seat to move in a `state`, or -1 when the game is over.
int seat_to_move(const json::object& st) {
  if (st.at("result").as_string() != "*") return -1;
  return int(st.at(st.at("turn").as_string() == "w" ? "white" : "black").as_int64());
}

std::string random_move(const json::object& st, std::mt19937& rng) {
  const json::array& legal = st.at("legal").as_array();
  return legal.empty() ? "" : std::string(legal[rng() % legal.size()].as_string());
}

std::string move_message(int64_t v, const std::string& move, const std::string& id = "") {
  json::object o{{"t", "move"}, {"v", v}, {"move", move}};
  if (!id.empty()) o["id"] = id;
  return json::serialize(o);
}

// What an attack's connections did.
struct Tally {
  std::atomic<long> opened{0}, failed{0}, dropped{0}, sent{0};
};

// HTTP/1.1 over one connection from a chosen address: sends bytes as they
// are (a whole request or a broken one) and reads one answer. The connection
// is kept for the next exchange when the server keeps it.
struct Http : std::enable_shared_from_this<Http> {
  beast::tcp_stream stream;
  asio::ip::address from;
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  std::string bytes;
  std::chrono::seconds wait{5};
  std::function<void(int, std::string)> done;  // status (0: no answer), body

  Http(asio::any_io_executor ex, asio::ip::address f) : stream(std::move(ex)), from(f) {}

  void exchange(std::string request, std::function<void(int, std::string)> then, std::chrono::seconds w = 5s) {
    bytes = std::move(request);
    done = std::move(then);
    wait = w;
    if (stream.socket().is_open()) return write();
    connect_from(stream, from, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->finish(0);
      self->write();
    });
  }
  void write() {
    stream.expires_after(wait);
    asio::async_write(stream, asio::buffer(bytes), [self = shared_from_this()](beast::error_code, size_t) {
      // Read even when the write failed: a server that refuses a request
      // early may have answered before it closed.
      self->res = {};
      http::async_read(self->stream, self->buffer, self->res, [self](beast::error_code ec, size_t) {
        if (ec) return self->finish(0);
        self->finish(self->res.result_int(), std::move(self->res.body()), self->res.keep_alive());
      });
    });
  }
  void finish(int status, std::string body = {}, bool keep = false) {
    stream.expires_never();
    if (!keep) {
      beast::error_code ec;
      stream.socket().close(ec);
      buffer.clear();
    }
    auto then = std::move(done);
    then(status, std::move(body));
  }
};

// A WebSocket client from a chosen address. Messages queued with `send` go
// out once the connection is open; with `repeat` set it writes that message
// again and again. It reads unless told not to, and `on_end` runs once when
// the connection fails or the server closes it.
struct WsClient : std::enable_shared_from_this<WsClient> {
  websocket::stream<beast::tcp_stream> ws;
  beast::flat_buffer buffer;
  std::deque<std::string> out;
  std::string repeat;
  bool reads = true, open = false, writing = false, ended = false;
  Tally* tally = nullptr;
  std::function<void(WsClient&, json::object&)> on_message;
  std::function<void(WsClient&)> on_end;

  explicit WsClient(asio::any_io_executor ex) : ws(std::move(ex)) {}

  void start(const asio::ip::address& from) {
    ws.set_option(websocket::stream_base::timeout{5s, websocket::stream_base::none(), false});
    ws.text(true);
    connect_from(beast::get_lowest_layer(ws), from, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->end();
      beast::get_lowest_layer(self->ws).expires_never();
      self->ws.async_handshake("127.0.0.1", "/ws", [self](beast::error_code ec) {
        if (ec) return self->end();
        self->open = true;
        if (self->tally) ++self->tally->opened;
        if (self->reads) self->read_next();
        self->write_next();
      });
    });
  }
  void send(std::string text) {
    out.push_back(std::move(text));
    write_next();
  }
  void write_next() {
    if (!open || ended || writing || (out.empty() && repeat.empty())) return;
    if (out.empty()) out.push_back(repeat);
    writing = true;
    ws.async_write(asio::buffer(out.front()), [self = shared_from_this()](beast::error_code ec, size_t) {
      self->writing = false;
      if (ec) return self->end();
      self->out.pop_front();
      if (self->tally) ++self->tally->sent;
      self->write_next();
    });
  }
  void read_next() {
    ws.async_read(buffer, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->end();
      if (self->on_message) {
        boost::system::error_code pec;
        json::value v = json::parse(beast::buffers_to_string(self->buffer.data()), pec);
        try {
          if (!pec && v.is_object()) self->on_message(*self, v.as_object());
        } catch (const std::exception&) {
          // a message without the expected fields: skip it
        }
      }
      self->buffer.consume(self->buffer.size());
      self->read_next();
    });
  }
  void end() {
    if (ended) return;
    ended = true;
    if (tally) ++(open ? tally->dropped : tally->failed);
    beast::error_code ec;
    beast::get_lowest_layer(ws).socket().close(ec);
    if (on_end) on_end(*this);
  }
};

// The normal players: one table, host and guest both on 127.0.0.1, driven
// by the main thread's io_context. Each position is played by the player who
// must act, from their own copy of the state; a move's latency runs from
// sending it until the other player receives the state after it.
struct Victim {
  static constexpr auto kPace = 100ms;  // between actions: 10 moves a second
  static constexpr auto kNoAnswer = 5s;
  asio::io_context& ioc;
  std::string code, token[2];
  std::shared_ptr<WsClient> ws[2];
  asio::steady_timer retry[2], pace, deadline;
  std::mt19937 rng{1};
  bool welcomed[2] = {false, false}, started = false, playing = false;
  bool resign_first = false;  // end the running game before the window's first move
  // The latest position, as the player who must act in it received it.
  json::object state;
  int64_t game = -1, v = -1;
  int actor = -1;
  // The action in flight.
  bool waiting = false, sent_move = false;
  int64_t sent_game = -1, sent_v = -1, sent_id = 0;
  int sent_seat = 0;
  Clock::time_point sent_at, next_at;
  // This window's figures.
  std::vector<double> latencies_ms;
  int lost = 0, refused = 0;

  explicit Victim(asio::io_context& c)
      : ioc(c), retry{asio::steady_timer(c), asio::steady_timer(c)}, pace(c), deadline(c) {}

  void run_until(const std::function<bool()>& done, Clock::duration limit) {
    auto end = Clock::now() + limit;
    while (!done() && Clock::now() < end) ioc.run_for(10ms);
  }

  bool setup() {
    auto h = std::make_shared<Http>(ioc.get_executor(), loopback(0, 1));
    int status = -1;
    std::string body;
    auto call = [&](const std::string& target, const std::string& request) {
      status = -1;
      h->exchange(post_request(target, request), [&](int s, std::string b) {
        status = s;
        body = std::move(b);
      });
      run_until([&] { return status >= 0; }, 15s);
      if (status < 200 || status > 201) return json::object{};
      return json::parse(body).as_object();
    };
    json::object created = call("/api/parties", R"({"name":"victim host"})");
    if (created.empty()) return false;
    code = std::string(created.at("code").as_string());
    token[0] = std::string(created.at("token").as_string());
    json::object joined = call("/api/parties/" + code + "/join", R"({"name":"victim guest"})");
    if (joined.empty()) return false;
    token[1] = std::string(joined.at("token").as_string());
    connect(0);
    connect(1);
    run_until([&] { return game >= 0; }, 15s);
    return game >= 0;
  }

  void connect(int seat) {
    auto c = std::make_shared<WsClient>(ioc.get_executor());
    c->send(hello(code, token[seat]));
    c->on_message = [this, seat](WsClient&, json::object& m) { on_message(seat, m); };
    c->on_end = [this, seat](WsClient&) {
      welcomed[seat] = false;
      retry[seat].expires_after(200ms);
      retry[seat].async_wait([this, seat](beast::error_code ec) {
        if (!ec) connect(seat);
      });
    };
    ws[seat] = c;
    c->start(loopback(0, 1));
  }

  void on_message(int seat, json::object& m) {
    std::string_view t = m.at("t").as_string();
    if (t == "welcome") {
      welcomed[seat] = true;
      if (!started && welcomed[0] && welcomed[1]) {
        started = true;
        ws[0]->send(R"({"t":"start"})");
      }
    } else if (t == "error") {
      const json::value* id = m.if_contains("id");
      if (waiting && id && id->is_string() && id->as_string() == "a" + std::to_string(sent_id)) {
        if (sent_move) ++refused;
        resync();
      }
    } else if (t == "state") {
      on_state(seat, m);
    }
  }

  void on_state(int seat, json::object& st) {
    int64_t g = st.at("game").as_int64(), ver = st.at("v").as_int64();
    if (waiting && seat != sent_seat && (g > sent_game || (g == sent_game && ver > sent_v))) {
      // The other player has seen the action's result.
      if (sent_move) latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent_at).count());
      waiting = false;
      deadline.cancel();
    }
    int mover = seat_to_move(st);
    int who = mover < 0 ? 0 : mover;  // the host asks for the rematch (and the guest agrees)
    if (seat == who && (g > game || (g == game && ver > v))) {
      state = st;
      game = g;
      v = ver;
      actor = who;
    }
    act();
  }

  // Plays the latest position, once, at the pace.
  void act() {
    if (!playing || waiting || game < 0 || (game == sent_game && v == sent_v)) return;
    pace.expires_at(std::max(Clock::now(), next_at));
    pace.async_wait([this, g = game, ver = v](beast::error_code ec) {
      if (ec || !playing || waiting || g != game || ver != v) return;
      bool over = seat_to_move(state) < 0, resign = !over && resign_first;
      std::string move = over || resign ? "" : random_move(state, rng);
      if (!over && !resign && move.empty()) return;
      resign_first = false;
      ++sent_id;
      std::string id = "a" + std::to_string(sent_id);
      waiting = true;
      sent_move = !move.empty();
      sent_game = game;
      sent_v = v;
      sent_seat = actor;
      sent_at = Clock::now();
      next_at = sent_at + kPace;
      if (over) {  // a rematch is by agreement: both ask
        ws[actor]->send(json::serialize(json::object{{"t", "rematch"}, {"id", id}}));
        ws[1 - actor]->send(R"({"t":"rematch"})");
      }
      else if (resign) ws[actor]->send(json::serialize(json::object{{"t", "resign"}, {"v", v}, {"id", id}}));
      else ws[actor]->send(move_message(v, move, id));
      deadline.expires_after(kNoAnswer);
      deadline.async_wait([this](beast::error_code ec) {
        if (ec || !waiting) return;
        if (sent_move) ++lost;
        resync();
      });
    });
  }

  // After a refusal or a missing answer: ask for the state again and play
  // whatever it says.
  void resync() {
    waiting = false;
    deadline.cancel();
    sent_game = sent_v = -1;
    for (auto& c : ws)
      if (c->open && !c->ended) c->send(R"({"t":"sync"})");
  }

  // Each window starts from a new game: a state carries the whole move list,
  // so every case then sees states of the same sizes.
  void begin_window() {
    latencies_ms.clear();
    lost = refused = 0;
    resign_first = v > 0;
    playing = true;
    act();
  }
  void end_window() {
    playing = false;
    pace.cancel();
    run_until([&] { return !waiting; }, kNoAnswer + 1s);  // the last move's answer, or its timeout
  }
};

// One case's attack: its own io_context, run by background threads, with
// everything it opened closed when it is destroyed.
struct Attack {
  static constexpr long kSteps = 1'000'000;  // connections and requests at most
  int index;
  std::string victim_code;
  asio::io_context ioc;
  Tally tally;
  std::atomic<long> steps{kSteps};
  std::atomic<int> half_open{0};
  std::mutex mutex;
  std::map<int, long> statuses;             // HTTP answers (0: none)
  std::map<int, long> previews;             // a bystander's link previews, by status
  std::vector<double> preview_ms;           // and their times
  std::vector<std::shared_ptr<void>> held;  // connections kept open with nothing in flight

  Attack(int i, std::string code) : index(i), victim_code(std::move(code)) {}
  asio::ip::address from(int i) const { return loopback(index, 2 + i); }
  asio::any_io_executor strand() { return asio::make_strand(ioc); }
  bool step() { return steps.fetch_sub(1) > 0; }
  void hold(std::shared_ptr<void> p) {
    std::lock_guard lock(mutex);
    held.push_back(std::move(p));
  }
  void count(int status) {
    std::lock_guard lock(mutex);
    ++statuses[status];
  }
  std::string summary() {
    std::string s;
    auto item = [&](const char* what, long n) {
      if (n) s += (s.empty() ? "" : ", ") + std::string(what) + " " + std::to_string(n);
    };
    item("connections", tally.opened);
    item("failed", tally.failed);
    item("closed by server", tally.dropped);
    item("messages", tally.sent);
    std::lock_guard lock(mutex);
    if (!statuses.empty()) {
      s += s.empty() ? "HTTP" : ", HTTP";
      for (auto& [status, n] : statuses)
        s += " " + (status ? std::to_string(status) : "none") + ":" + std::to_string(n);
    }
    if (!previews.empty()) {
      s += "; a bystander's previews";
      for (auto& [status, n] : previews)
        s += " " + (status ? std::to_string(status) : "none") + ":" + std::to_string(n);
      std::vector<double> t = preview_ms;
      std::sort(t.begin(), t.end());
      char buf[96];
      std::snprintf(buf, sizeof buf, ", p50 %.0f ms, max %.0f ms", t[t.size() / 2], t.back());
      s += buf;
    }
    return s.empty() ? "-" : s;
  }
};

// A WebSocket from `from`, prepared by `prepare`; while the attack runs, one
// that ends is replaced when `again`.
void keep_ws(Attack& a, const asio::ip::address& from, std::function<void(WsClient&)> prepare, bool again = true) {
  if (!a.step()) return;
  auto c = std::make_shared<WsClient>(a.strand());
  c->tally = &a.tally;
  prepare(*c);
  if (again)
    c->on_end = [&a, from, prepare](WsClient& c) {
      // A connection refused at once waits a little before the next try.
      later(c.ws.get_executor(), c.open ? 0ms : 50ms, [&a, from, prepare] { keep_ws(a, from, prepare); });
    };
  if (!c->reads) a.hold(c);
  c->start(from);
}

// A TCP connection that sends nothing; it notes when the server closes it.
void idle_tcp(Attack& a, const asio::ip::address& from) {
  struct Idle {
    beast::tcp_stream s;
    char byte = 0;
    explicit Idle(asio::any_io_executor ex) : s(std::move(ex)) {}
  };
  auto c = std::make_shared<Idle>(a.strand());
  connect_from(c->s, from, [&a, c](beast::error_code ec) {
    if (ec) return void(++a.tally.failed);
    ++a.tally.opened;
    c->s.expires_never();
    c->s.async_read_some(asio::buffer(&c->byte, 1), [&a, c](beast::error_code, size_t) { ++a.tally.dropped; });
  });
}

// Sends `request` again and again over one kept connection.
void http_loop(Attack& a, std::shared_ptr<Http> h, std::string request) {
  if (!a.step()) return;
  h->exchange(request, [&a, h, request](int status, std::string) {
    a.count(status);
    if (status) return http_loop(a, h, request);
    later(h->stream.get_executor(), 50ms, [&a, h, request] { http_loop(a, h, request); });
  });
}

// Creates up to `tries` tables against the CPU from `from`; each one's
// creator answers every CPU move at once, and asks for a rematch when a game
// ends, so that the CPU always has a search to make for it.
void cpu_tables(Attack& a, const asio::ip::address& from, int tries) {
  if (tries <= 0 || !a.step()) return;
  // Black to move in a first game, where the CPU plays Black: it searches at once.
  const std::string request = post_request(
      "/api/parties",
      R"({"name":"cpu flood","cpu":8,"fen":"rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1"})");
  auto h = std::make_shared<Http>(a.strand(), from);
  h->exchange(request, [&a, from, tries, h](int status, std::string body) {
    a.count(status);
    if (status == 201) {
      json::object created = json::parse(body).as_object();
      std::string greeting =
          hello(std::string(created.at("code").as_string()), std::string(created.at("token").as_string()));
      keep_ws(a, from, [greeting, seed = unsigned(a.tally.opened + tries)](WsClient& c) {
        c.send(greeting);
        c.on_message = [rng = std::mt19937(seed)](WsClient& c, json::object& m) mutable {
          if (m.at("t").as_string() != "state") return;
          int mover = seat_to_move(m);
          if (mover < 0) c.send(R"({"t":"rematch"})");
          else if (mover == 0) c.send(move_message(m.at("v").as_int64(), random_move(m, rng)));
        };
      });
    }
    cpu_tables(a, from, tries - 1);
  });
}

// Malformed HTTP, one kind after another, from `from`.
void bad_http(Attack& a, const asio::ip::address& from, int turn) {
  if (!a.step()) return;
  static const std::string head =
      "POST /api/parties HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  static const std::string kinds[] = {
      // A body framed by a Transfer-Encoding the server does not know,
      // hiding a second request.
      head + "Transfer-Encoding: identity\r\n\r\n" + post_request("/api/parties", R"({"name":"smuggled"})"),
      // Headers far over the limit.
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + std::string(64 * 1024, 'a') + "\r\n\r\n",
      // A chunk size that is not a number.
      head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
      // A body over the limit.
      head + "Content-Length: 20000\r\n\r\n" + std::string(20000, ' '),
      // Half a request, then silence (kept open until the case ends; at most
      // 20 at a time from each address).
      head + "Content-Length: 100\r\n\r\n{\"name\":",
  };
  const int kind = turn % 5;
  auto h = std::make_shared<Http>(a.strand(), from);
  if (kind == 4) {
    if (a.half_open < 80) {
      ++a.half_open;
      h->exchange(kinds[kind], [&a](int status, std::string) {
        --a.half_open;
        a.count(status);
      }, 120s);
    }
    return asio::post(a.ioc, [&a, from, turn] { bad_http(a, from, turn + 1); });
  }
  h->exchange(kinds[kind], [&a, from, turn, h](int status, std::string) {
    a.count(status);
    bad_http(a, from, turn + 1);
  });
}

// Fetches `targets` in turn, over and over, on one connection.
void http_cycle(Attack& a, std::shared_ptr<Http> h, std::shared_ptr<std::vector<std::string>> targets, size_t i) {
  if (!a.step()) return;
  const std::string request = "GET " + (*targets)[i % targets->size()] + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  h->exchange(request, [&a, h, targets, i](int status, std::string) {
    a.count(status);
    if (status) return http_cycle(a, h, targets, i + 1);
    later(h->stream.get_executor(), 50ms, [&a, h, targets, i] { http_cycle(a, h, targets, i + 1); });
  });
}

// A bystander at another address asks for the link preview of a game whose
// picture was never drawn, every two seconds, on a new connection each time.
void previews(Attack& a, const asio::ip::address& from, std::shared_ptr<std::vector<std::string>> ids, size_t i) {
  if (i >= ids->size() || !a.step()) return;
  auto h = std::make_shared<Http>(a.strand(), from);
  const auto started = Clock::now();
  h->exchange("GET /api/games/" + (*ids)[i] + ".png?size=card HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
              [&a, h, from, ids, i, started](int status, std::string) {
                {
                  std::lock_guard lock(a.mutex);
                  ++a.previews[status];
                  a.preview_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - started).count());
                }
                later(h->stream.get_executor(), 2s, [&a, from, ids, i] { previews(a, from, ids, i + 1); });
              });
}

std::string long_game(int plies);

// `n` short games written straight into the server's database (two plies
// each); their public ids, or none without --data.
std::vector<std::string> short_games(int n) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) ids.push_back(long_game(2 + i % 2));
  if (!ids.empty() && ids.front().empty()) ids.clear();
  return ids;
}

// Writes an Ouk Chatrang game of `plies` knight moves out and back (legal
// for ever in Ouk Chatrang) straight into the server's database; returns its
// public id, or nothing without --data.
std::string long_game(int plies) {
  if (g_data.empty()) return {};
  std::mt19937 rng(std::random_device{}());
  auto pick = [&](std::string_view alphabet, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  namespace sv = makruk::server;
  auto store = sv::open_sqlite_store(g_data + "/makruk.db");
  sv::TableRecord p;
  p.code = pick("ABCDEFGHJKMNPQRSTUVWXYZ23456789", 6);
  p.variant = "ouk";
  p.counting = "auto";
  p.created_at = 1767225600000;
  p.invite_key = pick("abcdefghijklmnopqrstuvwxyz", 16);
  store->create_table(p, {p.code, 0, "Long", std::string(64, '0')});
  store->add_seat({p.code, 1, "Record", std::string(64, '1')});
  const std::string id = pick("abcdefghijkmnpqrstuvwxyz23456789", 12);
  const int64_t game = store->create_game(p.code, 1, 0, "", p.created_at, false, id);
  const char* shuffle[] = {"b1d2", "b8d7", "d2b1", "d7b8"};
  for (int v = 0; v < plies; ++v) store->append_action(game, v, shuffle[v % 4], p.created_at + v, false);
  return id;
}

struct Case {
  const char* name;
  int threads;
  std::function<void(Attack&)> start;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {"baseline", 0, [](Attack&) {}},
      {"ping-burst", 2,
       [](Attack& a) {
         for (int i = 0; i < 10; ++i) keep_ws(a, a.from(0), [](WsClient& c) { c.repeat = R"({"t":"ping"})"; });
       }},
      {"idle", 1,
       [](Attack& a) {
         for (int ip = 0; ip < 10; ++ip)
           for (int i = 0; i < 50; ++i) {
             idle_tcp(a, a.from(ip));
             keep_ws(a, a.from(ip), [](WsClient&) {});  // never says hello
           }
       }},
      {"slow-readers", 1,
       [](Attack& a) {
         std::string greeting = hello(a.victim_code);
         for (int i = 0; i < 50; ++i)
           keep_ws(a, a.from(0), [greeting](WsClient& c) {
             c.reads = false;
             c.send(greeting);
           }, false);
       }},
      {"many-connections", 1,
       [](Attack& a) {
         for (int i = 0; i < 1000; ++i) idle_tcp(a, a.from(0));
       }},
      {"hello-flood", 2,
       [](Attack& a) {
         std::string greeting = hello(a.victim_code);
         for (int i = 0; i < 10; ++i) keep_ws(a, a.from(0), [greeting](WsClient& c) { c.repeat = greeting; });
       }},
      {"create-flood", 4,
       [](Attack& a) {
         for (int i = 0; i < 4; ++i)
           http_loop(a, std::make_shared<Http>(a.strand(), a.from(i)),
                     post_request("/api/parties", R"({"name":"create flood"})"));
       }},
      {"cpu-flood", 1,
       [](Attack& a) {
         // One more table per address than the default --limit-cpu allows.
         for (int i = 0; i < 10; ++i) cpu_tables(a, a.from(i), 4);
       }},
      {"bad-http", 4,
       [](Attack& a) {
         for (int i = 0; i < 4; ++i) bad_http(a, a.from(i), i);
       }},
      {"picture-flood", 2,
       [](Attack& a) {
         // 12 connections from one address cycle through 120 games' pictures,
         // none drawn before; a bystander at another address asks for new
         // previews meanwhile.
         auto games = short_games(180);
         if (games.empty()) return void(std::fprintf(stderr, "picture-flood: no --data, no games\n"));
         auto flood = std::make_shared<std::vector<std::string>>();
         for (size_t i = 0; i < 120; ++i) flood->push_back("/api/games/" + games[i] + ".png" + (i % 2 ? "?size=card" : ""));
         auto bystander = std::make_shared<std::vector<std::string>>(games.begin() + 120, games.end());
         for (size_t i = 0; i < 12; ++i) http_cycle(a, std::make_shared<Http>(a.strand(), a.from(0)), flood, i * 10);
         previews(a, a.from(1), bystander, 0);
       }},
      {"long-record", 2,
       [](Attack& a) {
         const std::string id = long_game(20000);
         if (id.empty()) return void(std::fprintf(stderr, "long-record: no --data, nothing to fetch\n"));
         const std::string targets[] = {"/api/games/" + id, "/api/games/" + id + ".pgn", "/api/games/" + id + ".png",
                                        "/g/" + id};
         for (int i = 0; i < 4; ++i)
           http_loop(a, std::make_shared<Http>(a.strand(), a.from(i)),
                     "GET " + targets[i] + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
       }},
  };
  return list;
}

// Waits (at most a minute) until the server has been nearly idle for half a
// second, so that one case's leftovers (CPU searches still queued, say) do
// not land in the next.
void settle(Victim& victim, int pid) {
  victim.run_until([] { return false; }, 1s);
  for (auto end = Clock::now() + 60s; pid && Clock::now() < end;) {
    double before = cpu_seconds(pid);
    victim.run_until([] { return false; }, 500ms);
    if (cpu_seconds(pid) - before < 0.025) break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint16_t port = 8080;
  int seconds = 10, server_pid = 0;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--port") port = uint16_t(std::stoi(v));
    else if (k == "--seconds") seconds = std::max(1, std::stoi(v));
    else if (k == "--case") only = v;
    else if (k == "--server-pid") server_pid = std::stoi(v);
    else if (k == "--data") g_data = v;
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  if (!only.empty() &&
      std::none_of(cases().begin(), cases().end(), [&](const Case& c) { return c.name == only; })) {
    std::cerr << "unknown case " << only << "; one of:";
    for (auto& c : cases()) std::cerr << " " << c.name;
    std::cerr << "\n";
    return 2;
  }
  rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);

  g_server = tcp::endpoint(loopback(0, 1), port);
  asio::io_context vioc;
  auto keep_running = asio::make_work_guard(vioc);
  Victim victim(vioc);
  if (!victim.setup()) {
    std::cerr << "hostile: could not set up the victim's table on 127.0.0.1:" << port << "\n";
    return 1;
  }
  std::printf("victim table %s on 127.0.0.1:%u, %d s per case, each from a new game; latency in ms\n",
              victim.code.c_str(), unsigned(port), seconds);
  std::printf("%-17s %6s %8s %8s %8s %9s %7s %7s  %s\n", "case", "moves", "p50", "p99", "max", "no answer", "refused",
              "server", "attack");
  std::fflush(stdout);

  for (size_t index = 0; index < cases().size(); ++index) {
    const Case& c = cases()[index];
    if (!only.empty() && only != c.name) continue;
    settle(victim, server_pid);
    auto attack = std::make_unique<Attack>(int(index), victim.code);
    c.start(*attack);
    std::vector<std::thread> threads;
    auto attack_work = asio::make_work_guard(attack->ioc);
    for (int i = 0; i < c.threads; ++i)
      threads.emplace_back([&] {
        for (;;) try {
            attack->ioc.run();  // returns once stopped
            break;
          } catch (const std::exception&) {
            // an unexpected answer: that one connection stops, the rest go on
          }
      });

    victim.begin_window();
    victim.run_until([] { return false; }, std::chrono::seconds(seconds));
    victim.end_window();

    attack_work.reset();
    attack->ioc.stop();
    for (auto& t : threads) t.join();
    std::string what = attack->summary();
    attack.reset();  // closes every connection it opened

    auto& lat = victim.latencies_ms;
    std::sort(lat.begin(), lat.end());
    auto pct = [&](double p) {
      return lat.empty() ? 0.0 : lat[std::min(lat.size() - 1, size_t(p * double(lat.size())))];
    };
    char state = server_pid ? process_state(server_pid) : '?';
    const char* alive = state == '?' ? "?" : (state == 0 || state == 'Z' || state == 'X') ? "dead" : "alive";
    std::printf("%-17s %6zu %8.2f %8.2f %8.2f %9d %7d %7s  %s\n", c.name, lat.size(), pct(0.50), pct(0.99),
                lat.empty() ? 0.0 : lat.back(), victim.lost, victim.refused, alive, what.c_str());
    std::fflush(stdout);
  }
  return 0;
}
