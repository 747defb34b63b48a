#include "server/cpu/cpu.h"

#include <algorithm>
#include <random>

#include "core/notation.h"
#include "engine/default_network.h"
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
    queues_[job.owner].push_back(std::move(job));
    ++pending_;
  }
  cv_.notify_one();
}

size_t CpuPool::pending() const {
  std::lock_guard lock(mutex_);
  return pending_;
}

size_t CpuPool::pending_for(const std::string& owner) const {
  std::lock_guard lock(mutex_);
  auto it = queues_.find(owner);
  return it == queues_.end() ? 0 : it->second.size();
}

CpuJob CpuPool::take() {
  // The owner served least recently goes first (one never served, first of
  // all): a newcomer waits only for the searches already running, however
  // many searches other owners have queued.
  auto next = queues_.end();
  uint64_t oldest = UINT64_MAX;
  for (auto it = queues_.begin(); it != queues_.end(); ++it) {
    auto seen = served_.find(it->first);
    uint64_t at = seen == served_.end() ? 0 : seen->second;
    if (at < oldest) oldest = at, next = it;
  }
  CpuJob job = std::move(next->second.front());
  next->second.pop_front();
  served_[next->first] = ++turn_;
  if (next->second.empty()) queues_.erase(next);
  --pending_;
  // Remember the owners served lately, not every owner ever seen.
  if (served_.size() > 4096)
    std::erase_if(served_, [this](const auto& e) { return e.second + 4096 < turn_ && !queues_.count(e.first); });
  return job;
}

void CpuPool::run() {
  for (;;) {
    CpuJob job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !queues_.empty(); });
      if (stopping_) return;
      job = take();
    }
    job.done(cpu_actions(job.position, job.level, job.max_ms, job.answer_offer, job.cpu));
  }
}

std::vector<std::string> cpu_actions(const Position& root, int level, int max_ms, bool answer_offer, Color cpu) {
  thread_local engine::Engine engine{engine::nnue::default_networks()};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::vector<std::string> actions;
  Position pos = root;
  if (answer_offer) {
    const std::string me = cpu == WHITE ? "w" : "b";
    engine::Limits probe;
    probe.depth = 6;
    probe.movetime = std::max(1, max_ms / 3);
    const int score = engine.search(pos, probe).score;
    const int mine = pos.side_to_move() == cpu ? score : -score;
    // Glad of a draw when clearly worse, or level once a count runs.
    if (mine <= -50 || (pos.count().running() && mine <= 50)) return {"accept:" + me};
    actions.push_back("decline:" + me);
    if (pos.side_to_move() != cpu) return actions;  // the other side moves next
  }
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
      probe.movetime = std::max(1, max_ms / 4);
      if (engine.search(stopped, probe).score >= 400) {
        pos = stopped;
        actions.push_back("stop:" + side);
      }
    }
  }
  engine::Limits limits;
  limits.movetime = std::max(1, std::min(max_ms, level >= engine::MAX_LEVEL ? 1500 : 1000));
  engine::SearchResult r = engine::play_at_level(engine, pos, level, limits, rng);
  if (!r.best.is_none()) actions.push_back(move_to_string(r.best));
  return actions;
}

}  // namespace makruk::server
