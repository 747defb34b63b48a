// Tables on demand, measured with many stored tables.
//
//   tables make DB COUNT
//     creates COUNT tables in the SQLite database DB (made with the server's
//     own migrations): a year of tables, most with one game of legal moves,
//     some waiting for a second player, some turn-based (those older than 45
//     days expired), some against the CPU (its reply already played). Every
//     code and invite key goes to DB.codes.
//   tables open HOST PORT CODES N
//     opens N tables picked at random from CODES, one after another, as a
//     browser does first (GET /api/tables/CODE?k=KEY on one keep-alive
//     connection), and prints the latency's p50, p99 and maximum.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/game.h"
#include "core/notation.h"
#include "server/stores/store.h"

using namespace makruk;

namespace {

constexpr int64_t DAY = 24LL * 3600 * 1000;
constexpr std::string_view ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

void check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db));
}

struct Stmt {
  sqlite3* db;
  sqlite3_stmt* s = nullptr;
  Stmt(sqlite3* d, const char* sql) : db(d) { check(sqlite3_prepare_v2(d, sql, -1, &s, nullptr), d, sql); }
  ~Stmt() { sqlite3_finalize(s); }
  Stmt& text(int i, const std::string& v) {
    sqlite3_bind_text(s, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& num(int i, int64_t v) {
    sqlite3_bind_int64(s, i, v);
    return *this;
  }
  void run() {
    check(sqlite3_step(s), db, "step");
    sqlite3_reset(s);
  }
};

std::string hex(std::mt19937_64& rng, int bytes) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < bytes; ++i) {
    unsigned v = unsigned(rng() & 255);
    s += d[v >> 4];
    s += d[v & 15];
  }
  return s;
}

// Random games of legal moves, 0 to 80 plies, in both variants.
std::vector<std::vector<std::string>> random_games(Variant v, std::mt19937_64& rng, int n) {
  std::vector<std::vector<std::string>> out;
  for (int i = 0; i < n; ++i) {
    std::string error;
    auto g = Game::create(v, Counting::Automatic, "", &error);
    const int plies = int(rng() % 81);
    for (int p = 0; p < plies && !g->over(); ++p) {
      MoveList legal = g->legal_moves();
      if (legal.size == 0) break;
      g->apply(move_to_string(legal.moves[rng() % uint64_t(legal.size)]), &error);
    }
    out.push_back(g->record());
  }
  return out;
}

int make(const std::string& path, int64_t count) {
  server::open_sqlite_store(path);  // the schema, by the server's migrations
  sqlite3* db = nullptr;
  check(sqlite3_open(path.c_str(), &db), db, "open");
  check(sqlite3_exec(db, "PRAGMA synchronous=OFF", nullptr, nullptr, nullptr), db, "pragma");
  std::mt19937_64 rng(20261201);
  const auto makruk_games = random_games(Variant::Makruk, rng, 400), ouk_games = random_games(Variant::Ouk, rng, 100);
  std::string error;
  const std::string makruk_fen = Game::create(Variant::Makruk, Counting::Automatic, "", &error)->position().fen();
  const std::string ouk_fen = Game::create(Variant::Ouk, Counting::Automatic, "", &error)->position().fen();
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  Stmt party(db,
             "INSERT INTO parties (code, variant, counting, show_legal, swap_colors, labels, cpu_level, created_at, "
             "start_fen, mode, starts_at, expired_at, rematch_offer, invite_key, last_action_at, cpu_turn, left_at) "
             "VALUES (?1, ?2, 'auto', 1, 1, 1, ?3, ?4, '', ?5, 0, ?6, -1, ?7, ?8, 0, ?9)");
  Stmt seat(db, "INSERT INTO seats VALUES (?1, ?2, ?3, ?4)");
  Stmt game(db, "INSERT INTO games (code, number, white_seat, start_fen, created_at) VALUES (?1, 1, 0, ?2, ?3)");
  Stmt action(db, "INSERT INTO actions VALUES (?1, ?2, ?3, ?4)");
  std::ofstream codes(path + ".codes");
  std::unordered_set<std::string> used;
  used.reserve(size_t(count) * 2);
  static const char* names[] = {"Somchai", "Dara", "Malee", "Sokha", "Niran", "Chenda", "Ploy", "Visal"};
  check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db, "begin");
  for (int64_t i = 0; i < count; ++i) {
    std::string code;
    do {
      code.clear();
      for (int k = 0; k < 6; ++k) code += ALPHABET[rng() % ALPHABET.size()];
    } while (!used.insert(code).second);
    const std::string key = hex(rng, 8);
    codes << code << ' ' << key << '\n';
    const int kind = int(rng() % 100);  // <10 waiting, <30 turn-based, <40 CPU, else live
    const bool ouk = rng() % 5 == 0;
    const int64_t created = now - int64_t(rng() % uint64_t(365 * DAY));
    const bool turn = kind >= 10 && kind < 30, cpu = kind >= 30 && kind < 40;
    std::vector<std::string> moves;
    if (kind >= 10) {
      const auto& pool = ouk ? ouk_games : makruk_games;
      moves = pool[rng() % pool.size()];
      if (cpu && moves.size() % 2 == 1) moves.pop_back();  // the CPU (Black) has answered
    }
    int64_t at = created, last = created;
    const int64_t step = turn ? 6 * 3600 * 1000 : 20 * 1000;
    last = created + step * int64_t(moves.size());
    const int64_t expired = turn && last < now - 45 * DAY ? last + 45 * DAY : 0;
    party.text(1, code).text(2, ouk ? "ouk" : "makruk").num(3, cpu ? 1 + int64_t(rng() % 8) : 0).num(4, created)
        .text(5, turn ? "turn" : "live").num(6, expired).text(7, key).num(8, last).num(9, turn || cpu ? 0 : last + 60000)
        .run();
    seat.text(1, code).num(2, 0).text(3, names[rng() % 8]).text(4, hex(rng, 32)).run();
    if (kind < 10) continue;
    if (!cpu) seat.text(1, code).num(2, 1).text(3, names[rng() % 8]).text(4, hex(rng, 32)).run();
    game.text(1, code).text(2, ouk ? ouk_fen : makruk_fen).num(3, created).run();
    const int64_t id = sqlite3_last_insert_rowid(db);
    for (size_t v = 0; v < moves.size(); ++v) {
      at += step;
      action.num(1, id).num(2, int64_t(v + 1)).text(3, moves[v]).num(4, at).run();
    }
    if (expired) action.num(1, id).num(2, int64_t(moves.size() + 1)).text(3, "expire").num(4, expired).run();
    if ((i + 1) % 50000 == 0) {
      check(sqlite3_exec(db, "COMMIT; BEGIN", nullptr, nullptr, nullptr), db, "commit");
      std::cerr << "\r" << (i + 1) << " tables" << std::flush;
    }
  }
  check(sqlite3_exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr), db, "commit");
  sqlite3_close(db);
  std::cerr << "\r" << count << " tables in " << path << "\n";
  return 0;
}

// One keep-alive HTTP/1.1 connection to the server.
class Http {
 public:
  Http(const std::string& host, int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    inet_pton(AF_INET, host.c_str(), &a.sin_addr);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("cannot connect");
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Http() { close(fd_); }
  // Sends a GET; answers the status (the body is read and dropped).
  int get(const std::string& target) {
    std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    if (send(fd_, req.data(), req.size(), 0) != ssize_t(req.size())) throw std::runtime_error("send failed");
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) fill();
    const std::string head = buf_.substr(0, end);
    size_t cl = head.find("Content-Length: ");
    if (cl == std::string::npos) cl = head.find("content-length: ");
    const size_t length = cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 16));
    while (buf_.size() < end + 4 + length) fill();
    buf_.erase(0, end + 4 + length);
    return std::stoi(head.substr(9, 3));
  }

 private:
  void fill() {
    char chunk[65536];
    ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) throw std::runtime_error("connection closed");
    buf_.append(chunk, size_t(n));
  }
  int fd_;
  std::string buf_;
};

int open_tables(const std::string& host, int port, const std::string& codes_path, int n) {
  std::vector<std::pair<std::string, std::string>> all;
  std::ifstream in(codes_path);
  std::string code, key;
  while (in >> code >> key) all.emplace_back(code, key);
  if (all.empty()) throw std::runtime_error("no codes in " + codes_path);
  std::mt19937_64 rng(std::random_device{}());
  std::shuffle(all.begin(), all.end(), rng);
  Http http(host, port);
  std::vector<double> ms;
  int failed = 0;
  for (int i = 0; i < n && i < int(all.size()); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    int status = http.get("/api/parties/" + all[size_t(i)].first + "?k=" + all[size_t(i)].second);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    failed += status != 200;
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[std::min(ms.size() - 1, size_t(p * double(ms.size())))]; };
  std::printf("opened %zu cold tables (%d not 200): p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", ms.size(), failed,
              pct(0.5), pct(0.99), ms.back());
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> a(argv + 1, argv + argc);
    if (a.size() == 3 && a[0] == "make") return make(a[1], std::stoll(a[2]));
    if (a.size() == 5 && a[0] == "open") return open_tables(a[1], std::stoi(a[2]), a[3], std::stoi(a[4]));
    std::cerr << "usage: tables make DB COUNT | tables open HOST PORT CODES N\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tables: " << e.what() << "\n";
    return 1;
  }
}
