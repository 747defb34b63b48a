// The store writer alone: how many actions a second it stores, and how long
// each waits, for a given store and number of lanes (no network, no hub).
// Usage: writer [--store postgresql://…] [--data DIR] [--lanes N] [--tables T] [--seconds S] [--rate R]
// Without --store, SQLite in DIR. Each of T tables gets actions one after
// another (the next once the last is stored, as players do); with --rate R,
// at most R actions a second in all.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/stores/store.h"
#include "server/stores/store_writer.h"

using namespace makruk::server;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  std::string store_url, data = "/tmp";
  int lanes = 1, tables = 1000, seconds = 10;
  double rate = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--store") store_url = v;
    else if (k == "--data") data = v;
    else if (k == "--lanes") lanes = std::stoi(v);
    else if (k == "--tables") tables = std::stoi(v);
    else if (k == "--seconds") seconds = std::stoi(v);
    else if (k == "--rate") rate = std::stod(v);
  }
  auto main_store = open_store(store_url, data, false);
  const std::string run = std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000);
  std::vector<int64_t> games;
  for (int t = 0; t < tables; ++t) {
    TableRecord r;
    r.code = "W" + run + "-" + std::to_string(t);
    r.variant = "makruk";
    r.counting = "auto";
    main_store->create_table(r, SeatRecord{r.code, 0, "A", "hash"});
    games.push_back(main_store->create_game(r.code, 1, 0, "fen", 0, false, "pid" + r.code));
  }
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::function<void()>> completions;
  std::vector<std::unique_ptr<Store>> connections;
  for (int i = 0; i < lanes; ++i) connections.push_back(open_store(store_url, data, false));
  StoreWriter writer(std::move(connections), [&](std::function<void()> f) {
    std::lock_guard lock(mutex);
    completions.push_back(std::move(f));
    cv.notify_one();
  });

  std::vector<int> version(size_t(tables), 0);
  std::vector<bool> busy(size_t(tables), false);
  std::vector<double> waits;
  uint64_t stored = 0, failed = 0;
  const auto start = Clock::now(), end = start + std::chrono::seconds(seconds);
  auto give = [&](int t) {
    const auto at = Clock::now();
    const int v = version[size_t(t)];
    writer.submit(
        "W" + std::to_string(t), [game = games[size_t(t)], v](Store& s) { s.append_action(game, v, "m", v, false); },
        [&, t, at](std::exception_ptr e) {
          waits.push_back(std::chrono::duration<double, std::milli>(Clock::now() - at).count());
          if (e) ++failed;
          else ++stored, ++version[size_t(t)];
          busy[size_t(t)] = false;
        });
  };
  // Each table's next action goes once the last is stored (and, with a
  // rate, not before its turn in the schedule).
  std::vector<Clock::time_point> due(size_t(tables), start);
  const auto gap = rate > 0 ? std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(tables / rate))
                            : Clock::duration(0);
  for (int t = 0; t < tables; ++t) due[size_t(t)] = start + gap * t / tables;
  while (Clock::now() < end) {
    const auto now = Clock::now();
    for (int t = 0; t < tables; ++t)
      if (!busy[size_t(t)] && due[size_t(t)] <= now) {
        busy[size_t(t)] = true;
        due[size_t(t)] += gap;
        give(t);
      }
    std::vector<std::function<void()>> ready;
    {
      std::unique_lock lock(mutex);
      cv.wait_for(lock, std::chrono::microseconds(200), [&] { return !completions.empty(); });
      ready.swap(completions);
    }
    for (auto& f : ready) f();
  }
  writer.wait_idle(60000);
  for (auto& f : completions) f();
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(waits.begin(), waits.end());
  auto pct = [&](double p) { return waits.empty() ? 0.0 : waits[std::min(waits.size() - 1, size_t(p * double(waits.size())))]; };
  std::printf("%s, %d lane(s), %d tables: %llu stored in %.1f s = %.0f a second (%llu refused), %llu batches; "
              "wait p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
              store_url.empty() ? "SQLite" : "PostgreSQL", lanes, tables, (unsigned long long)stored, secs,
              double(stored) / secs, (unsigned long long)failed, (unsigned long long)writer.batches(), pct(0.5),
              pct(0.99), waits.empty() ? 0.0 : waits.back());
}
