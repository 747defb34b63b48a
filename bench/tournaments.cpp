// A served tournament at scale (server/tournaments/tournaments.h) over a real
// SQLite store: N players join by the API, the host starts a Swiss of R
// rounds, and each round's games are decided (the host's results, random;
// each answered with the whole tournament); timed: the joins, each round's
// step (the last result, the next round paired and its tables made in the
// store, one commit), the answer the players ask for every few seconds, and a
// second instance reading the whole tournament from its events. Usage: tournaments [--players N] [--rounds R] [--db FILE]
#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "server/tournaments/tournaments.h"

using namespace makruk::server;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::unique_ptr<Tournaments> open_part(Store& store, int64_t& now) {
  return std::make_unique<Tournaments>(
      store, Tournaments::Gate{[](const std::string&) { return true; }, [](const std::string&, bool) { return true; }},
      [&now] { return now; });
}

}  // namespace

int main(int argc, char** argv) {
  int players = 500, rounds = 9;
  std::string db = (std::filesystem::temp_directory_path() / "makruk-bench-tournaments.db").string();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--players") players = std::stoi(argv[i + 1]);
    else if (k == "--rounds") rounds = std::stoi(argv[i + 1]);
    else if (k == "--db") db = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: tournaments [--players N] [--rounds R] [--db FILE]\n");
      return 2;
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  auto store = open_sqlite_store(db);
  int64_t now = 1764460800000;
  auto part = open_part(*store, now);
  part->set_limits(Tournaments::Limits{0});
  const Answer made = part->create(R"({"format":"swiss","rounds":)" + std::to_string(rounds) + "}", "10.0.0.1");
  const json::object m = json::parse(made.body).as_object();
  const std::string code(m.at("code").as_string()), host(m.at("hostToken").as_string());

  auto t0 = Clock::now();
  for (int p = 1; p <= players; ++p) part->join(code, R"({"name":"Player )" + std::to_string(p) + "\"}", "10.0.0.2");
  const double joins = ms_since(t0);
  std::printf("%d joins: %.0f ms (%.2f ms each)\n", players, joins, joins / players);

  t0 = Clock::now();
  part->act(code, R"({"token":")" + host + R"(","action":"start"})", "10.0.0.1");
  std::printf("start (round 1 paired, its tables made): %.0f ms\n", ms_since(t0));

  std::mt19937 random(1);
  const char* results[] = {"1-0", "1/2-1/2", "0-1"};
  double slowest = 0, asked = 0;
  std::printf("round  games  results before the last (ms each)  last result + next round (ms)\n");
  for (int round = 1; round <= rounds; ++round) {
    const json::object s = json::parse(part->get(code, "10.0.0.3").body).as_object();
    std::vector<json::object> games;
    for (const auto& g : s.at("games").as_array())
      if (g.at("round").as_int64() == round) games.push_back(g.as_object());
    if (games.empty()) break;
    auto decide = [&](const json::object& g) {
      part->act(code,
                R"({"token":")" + host + R"(","action":"result","round":)" + std::to_string(round) + R"(,"board":)" +
                    std::to_string(g.at("board").as_int64()) + R"(,"result":")" + results[random() % 3] + "\"}",
                "10.0.0.1");
    };
    t0 = Clock::now();
    for (size_t i = 0; i + 1 < games.size(); ++i) decide(games[i]);
    const double each = ms_since(t0) / double(std::max<size_t>(1, games.size() - 1));
    t0 = Clock::now();
    decide(games.back());
    const double step = ms_since(t0);
    slowest = std::max(slowest, step);
    now += 1000;
    t0 = Clock::now();
    for (int i = 0; i < 100; ++i) part->get(code, "10.0.0.3");  // what every player asks: from the cache
    asked = ms_since(t0) / 100;
    std::printf("%5d  %5zu  %33.2f  %29.0f\n", round, games.size(), each, step);
  }
  std::printf("slowest round step: %.0f ms; the answer asked again (same version): %.3f ms\n", slowest, asked);

  // Another instance (or this one after a restart) reads it whole.
  auto other_store = open_sqlite_store(db);
  auto other = open_part(*other_store, now);
  t0 = Clock::now();
  const Answer read = other->get(code, "10.0.0.4");
  std::printf("read from its events by another instance: %.0f ms (%zu bytes)\n", ms_since(t0), read.body.size());
  other.reset();
  other_store.reset();
  part.reset();
  store.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  return 0;
}
