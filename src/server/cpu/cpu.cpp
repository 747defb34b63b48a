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

int CpuPool::budget_ms(int max_ms, size_t waiting, size_t threads) {
  const size_t per_thread = waiting / std::max<size_t>(1, threads);
  const int64_t shared = int64_t(max_ms) / int64_t(1 + std::min<size_t>(per_thread, 1u << 20));
  return int(std::max<int64_t>(shared, std::min(max_ms, MIN_SHARED_MS)));
}

void CpuPool::run() {
  for (;;) {
    CpuJob job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !queues_.empty(); });
      if (stopping_) return;
      job = take();
      job.max_ms = budget_ms(job.max_ms, pending_, threads_.size());
    }
    job.done(cpu_actions(job.position, job.level, job.max_ms, job.answer_offer, job.cpu));
  }
}

std::vector<std::string> cpu_actions(const Position& root, int level, int max_ms, bool answer_offer, Color cpu) {
  thread_local engine::Engine engine{engine::nnue::default_networks()};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return engine::level_actions(engine, root, level, max_ms, answer_offer, cpu, rng);
}

}  // namespace makruk::server
