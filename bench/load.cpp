// Load generator for `makruk serve`: many concurrent games over WebSocket on
// loopback. Creates tables over HTTP, connects two players per game, plays
// legal moves at a target rate, and reports the connections held, moves per
// second and the time from sending a move to the opponent receiving it.
//
//   load --port 8080 --games 5000 --rate 2000 --seconds 30 [--server-pid PID] [--deflate 1] [--warmup 10]
//
// A player thinks (a random time, exponential, adding up to the rate) from
// the moment its own page shows the position: with several instances its
// page may be a moment behind the other's, or, with the bus stalled, seconds.
// Every game starts at once; with --warmup S the figures are of the S seconds
// after that burst (the whole run is reported too).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <deque>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  uint16_t port = 8080;
  int games = 100;
  double rate = 100;  // moves per second, all games together
  int seconds = 10;
  int server_pid = 0;
  bool deflate = false;  // the clients offer permessage-deflate
  int warmup = 0;         // seconds of play before the measured ones
};

struct Stats {
  std::vector<double> latencies_ms;
  size_t warm_latencies = 0;  // how many of them came before the measured seconds
  std::vector<double> ack_ms;  // from sending a move to the mover's own acknowledgement
  std::vector<Clock::time_point> ack_at;  // when each came
  size_t warm_acks = 0;
  uint64_t moves = 0, errors = 0, received = 0;
  int connected = 0;
};

long rss_kb(int pid) {
  if (!pid) return 0;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

// CPU time the process has used, user and system (ms).
double cpu_ms(int pid) {
  if (!pid) return 0;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // past the command's name
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  return ticks * 1000.0 / double(sysconf(_SC_CLK_TCK));
}

json::value http_post(uint16_t port, const std::string& target, const std::string& body, beast::tcp_stream& stream) {
  http::request<http::string_body> req{http::verb::post, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::content_type, "application/json");
  req.keep_alive(true);
  req.body() = body;
  req.prepare_payload();
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  (void)port;
  return json::parse(res.body());
}

struct Game;

// One player's connection.
struct Player : std::enable_shared_from_this<Player> {
  websocket::stream<beast::tcp_stream> ws;
  beast::flat_buffer buffer;
  std::deque<std::string> out;
  Game* game = nullptr;
  int seat = 0;
  bool welcomed = false;
  explicit Player(asio::io_context& ioc) : ws(ioc) {}

  void send(std::string s) {
    out.push_back(std::move(s));
    if (out.size() == 1) write_next();
  }
  void write_next() {
    ws.async_write(asio::buffer(out.front()), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return;
      self->out.pop_front();
      if (!self->out.empty()) self->write_next();
    });
  }
  void read_loop();
};

struct Game {
  std::string code;
  std::shared_ptr<Player> players[2];
  int64_t version = -1;
  int64_t game_id = 0;
  int white = 0;
  std::string turn;
  std::vector<std::string> legal;
  bool over = false, started = false;
  // The version each player's own connection has shown it (of game_id): a
  // player chooses a move only once its own page shows the position, and
  // thinks from then on (with several instances behind a proxy, the two
  // pages may be a moment apart; while the bus is stalled, for as long).
  int64_t seen[2] = {-1, -1};
  int64_t thinking_on = -1;  // the version whose move is being thought of
  Clock::time_point sent_at;
  int64_t sent_version = -1;
  int sent_seat = 0;
  bool ack_pending = false;  // the mover's acknowledgement of the move sent last
  asio::steady_timer timer;
  Stats* stats;
  double interval_ms;
  std::mt19937* rng;
  Game(asio::io_context& ioc, Stats* s, double interval, std::mt19937* r)
      : timer(ioc), stats(s), interval_ms(interval), rng(r) {}

  void on_state(int seat, const json::object& st) {
    int64_t v = st.at("v").as_int64();
    int64_t id = st.at("game").as_int64();
    if (id > game_id) {  // a new game (a rematch): its versions start again
      game_id = id;
      version = -1;
      thinking_on = -1;
      seen[0] = seen[1] = -1;
    }
    if (id < game_id) return;  // this page still shows the game before
    seen[seat] = v;
    if (seat == 1 - sent_seat && v == sent_version + 1 && sent_version >= 0) {
      // The opponent of the mover received the move.
      stats->latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent_at).count());
      sent_version = -1;
    }
    if (v > version) {  // whichever page has it first
      version = v;
      white = int(st.at("white").as_int64());
      turn = std::string(st.at("turn").as_string());
      over = st.at("result").as_string() != "*";
      legal.clear();
      for (auto& m : st.at("legal").as_array()) legal.emplace_back(m.as_string());
    }
    // A game over is the host's to call a rematch on; a move is the mover's
    // to think of once its page shows the position.
    int thinker = over ? 0 : mover_seat();
    if (seat == thinker && v == version && thinking_on != version) {
      thinking_on = version;
      schedule();
    }
  }
  void on_ack(int seat) {
    if (!ack_pending || seat != sent_seat) return;
    stats->ack_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent_at).count());
    stats->ack_at.push_back(Clock::now());
    ack_pending = false;
  }
  int mover_seat() const { return turn == "w" ? white : 1 - white; }
  void schedule() {
    std::exponential_distribution<double> wait(1.0 / interval_ms);
    timer.expires_after(std::chrono::microseconds(int64_t(wait(*rng) * 1000)));
    timer.async_wait([this](beast::error_code ec) {
      if (ec) return;
      if (over) {
        players[0]->send(R"({"t":"rematch"})");  // offered and accepted
        players[1]->send(R"({"t":"rematch"})");
        return;
      }
      if (legal.empty()) return;
      send_move(legal[(*rng)() % legal.size()]);
    });
  }
  void send_move(const std::string& move) {
    sent_at = Clock::now();
    sent_version = version;
    sent_seat = mover_seat();
    ack_pending = true;
    ++stats->moves;
    players[mover_seat()]->send(json::serialize(json::object{{"t", "move"}, {"v", version}, {"move", move}}));
  }
};

void Player::read_loop() {
  ws.async_read(buffer, [self = shared_from_this()](beast::error_code ec, size_t) {
    if (ec) return;
    std::string text = beast::buffers_to_string(self->buffer.data());
    self->buffer.consume(self->buffer.size());
    Game& g = *self->game;
    ++g.stats->received;
    boost::system::error_code pec;
    json::value v = json::parse(text, pec);
    if (!pec && v.is_object()) {
      auto& o = v.as_object();
      std::string_view t = o.at("t").as_string();
      if (t == "state") g.on_state(self->seat, o);
      else if (t == "ack") g.on_ack(self->seat);
      else if (t == "error") {
        if (++g.stats->errors <= 5) std::cerr << "error: " << text << "\n";
      }
      else if (t == "welcome") {
        self->welcomed = true;
        ++g.stats->connected;
      }
    }
    self->read_loop();
  });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--port") o.port = uint16_t(std::stoi(v));
    else if (k == "--games") o.games = std::stoi(v);
    else if (k == "--rate") o.rate = std::stod(v);
    else if (k == "--seconds") o.seconds = std::stoi(v);
    else if (k == "--server-pid") o.server_pid = std::stoi(v);
    else if (k == "--deflate") o.deflate = v != "0";
    else if (k == "--warmup") o.warmup = std::stoi(v);
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);

  asio::io_context ioc;
  tcp::endpoint server(asio::ip::make_address("127.0.0.1"), o.port);
  Stats stats;
  std::mt19937 rng(1);
  double interval_ms = 1000.0 * o.games / o.rate;  // each game moves this often on average
  std::vector<std::unique_ptr<Game>> games;

  long rss0 = rss_kb(o.server_pid);
  auto t0 = Clock::now();
  {
    beast::tcp_stream http_stream(ioc);
    http_stream.connect(server);
    for (int i = 0; i < o.games; ++i) {
      auto g = std::make_unique<Game>(ioc, &stats, interval_ms, &rng);
      json::value c = http_post(o.port, "/api/parties", R"({"name":"load host"})", http_stream);
      g->code = std::string(c.at("code").as_string());
      std::string host_token(c.at("token").as_string());
      json::value j = http_post(o.port, "/api/parties/" + g->code + "/join", R"({"name":"load guest"})", http_stream);
      std::string tokens[2] = {host_token, std::string(j.at("token").as_string())};
      for (int s = 0; s < 2; ++s) {
        auto p = std::make_shared<Player>(ioc);
        p->game = g.get();
        p->seat = s;
        if (o.deflate) {
          websocket::permessage_deflate pmd;
          pmd.client_enable = true;
          p->ws.set_option(pmd);
        }
        beast::get_lowest_layer(p->ws).connect(server);
        p->ws.handshake("127.0.0.1", "/ws?code=" + g->code);  // to the hub holding the table, as the web client
        p->send(json::serialize(json::object{{"t", "hello"}, {"code", g->code}, {"token", tokens[s]}}));
        p->read_loop();
        g->players[s] = p;
      }
      games.push_back(std::move(g));
    }
  }
  // Let every hello be answered; then measure the idle connections' memory.
  while (stats.connected < 2 * o.games && Clock::now() - t0 < std::chrono::seconds(120)) ioc.run_for(std::chrono::milliseconds(50));
  double setup_s = std::chrono::duration<double>(Clock::now() - t0).count();
  long rss1 = rss_kb(o.server_pid);
  std::cout << "connections held: " << stats.connected << " (" << o.games << " games) in " << setup_s << " s\n";
  if (o.server_pid)
    std::cout << "server memory: " << rss0 / 1024 << " MiB before, " << rss1 / 1024 << " MiB with the connections: "
              << (rss1 - rss0) * 1024 / std::max(1, stats.connected) << " bytes per idle connection (incl. its party)\n";

  for (auto& g : games) g->players[0]->send(R"({"t":"start"})");
  auto start = Clock::now();
  uint64_t moves0 = stats.moves;
  if (o.warmup > 0) {
    ioc.run_for(std::chrono::seconds(o.warmup));
    std::cout << "warm-up: " << o.warmup << " s after every game started at once, " << stats.moves - moves0
              << " moves\n";
    stats.warm_latencies = stats.latencies_ms.size();
    stats.warm_acks = stats.ack_ms.size();
    moves0 = stats.moves;
    start = Clock::now();
  }
  const double cpu0 = cpu_ms(o.server_pid), own0 = cpu_ms(getpid());
  ioc.run_for(std::chrono::seconds(o.seconds));
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  const double server_cpu = cpu_ms(o.server_pid) - cpu0, own_cpu = cpu_ms(getpid()) - own0;
  for (auto& g : games) g->timer.cancel();

  auto report = [](const char* what, std::vector<double> lat) {
    std::sort(lat.begin(), lat.end());
    auto pct = [&](double p) { return lat.empty() ? 0.0 : lat[std::min(lat.size() - 1, size_t(p * double(lat.size())))]; };
    std::cout << what << lat.size() << ", latency p50 " << pct(0.50) << " ms, p99 " << pct(0.99) << " ms, max "
              << (lat.empty() ? 0.0 : lat.back()) << " ms\n";
  };
  const auto& all = stats.latencies_ms;
  std::cout << "moves sent: " << stats.moves - moves0 << " in " << secs << " s = " << double(stats.moves - moves0) / secs
            << " moves/s (target " << o.rate << ")\n";
  report("delivered to the opponent: ",
         std::vector<double>(all.begin() + std::ptrdiff_t(stats.warm_latencies), all.end()));
  if (o.warmup > 0) report("  (with the warm-up: ", all);
  report("acknowledged to the mover: ",
         std::vector<double>(stats.ack_ms.begin() + std::ptrdiff_t(stats.warm_acks), stats.ack_ms.end()));
  // The acknowledgements by 5-second stretch of the measured run (an outage
  // in the middle shows where it hurt).
  for (int from = 0; from < o.seconds; from += 5) {
    std::vector<double> part;
    for (size_t i = stats.warm_acks; i < stats.ack_ms.size(); ++i) {
      const double at = std::chrono::duration<double>(stats.ack_at[i] - start).count();
      if (at >= from && at < from + 5) part.push_back(stats.ack_ms[i]);
    }
    report(("  acknowledged in s " + std::to_string(from) + "-" + std::to_string(from + 5) + ": ").c_str(), part);
  }
  std::cout << "errors: " << stats.errors << ", messages received: " << stats.received << "\n";
  if (o.server_pid && stats.moves > moves0)
    std::cout << "server CPU: " << server_cpu / secs / 10 << "% of a core, " << server_cpu * 1000 / double(stats.moves - moves0)
              << " us a move; the load generator: " << own_cpu / secs / 10 << "% of a core\n";
  if (o.server_pid) std::cout << "server memory at the end: " << rss_kb(o.server_pid) / 1024 << " MiB\n";
  return 0;
}
