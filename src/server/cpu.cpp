#include "cpu.h"

#include <random>

#include "core/notation.h"
#include "engine/levels.h"

namespace makruk::server {

CpuPool::CpuPool(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { run(); });
}

CpuPool::~CpuPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void CpuPool::submit(CpuJob job) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void CpuPool::run() {
  for (;;) {
    CpuJob job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job.done(cpu_actions(job.position, job.level));
  }
}

std::vector<std::string> cpu_actions(const Position& root, int level) {
  thread_local engine::Engine engine;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::vector<std::string> actions;
  Position pos = root;
  const Color us = pos.side_to_move();
  const std::string side = us == WHITE ? "w" : "b";
  if (pos.counting() == Counting::Declaration) {
    const Count& c = pos.count();
    if (!c.running()) {
      // The weaker side gains by counting: start a count as soon as it qualifies.
      Count q = qualifying_count(pos, us);
      if (q.running()) {
        pos.set_count(q);
        actions.push_back("count:" + side);
      }
    } else if (c.side == us) {
      // Counting, but winning: stop, since a mate while counting only draws (D9).
      Position stopped = pos;
      stopped.set_count(Count{});
      engine::Limits probe;
      probe.depth = 6;
      if (engine.search(stopped, probe).score >= 400) {
        pos = stopped;
        actions.push_back("stop:" + side);
      }
    }
  }
  engine::Limits limits;
  limits.movetime = level >= engine::MAX_LEVEL ? 1500 : 1000;
  engine::SearchResult r = engine::play_at_level(engine, pos, level, limits, rng);
  if (!r.best.is_none()) actions.push_back(move_to_string(r.best));
  return actions;
}

}  // namespace makruk::server
