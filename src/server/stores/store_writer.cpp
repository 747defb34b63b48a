#include "server/stores/store_writer.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <functional>
#include <string>

namespace makruk::server {

StoreWriter::StoreWriter(Store& store) : inline_store_(&store) {}

StoreWriter::StoreWriter(std::vector<std::unique_ptr<Store>> lanes, Complete complete, size_t max_batch)
    : complete_(std::move(complete)), max_batch_(max_batch ? max_batch : 1) {
  for (auto& store : lanes) {
    auto lane = std::make_unique<Lane>();
    lane->store = std::move(store);
    lanes_.push_back(std::move(lane));
  }
  for (auto& lane : lanes_) lane->thread = std::thread([this, l = lane.get()] { run(*l); });
}

StoreWriter::StoreWriter(StoreWriter& shared, Complete complete)
    : shared_(&shared.lanes_owner()), complete_(std::move(complete)) {}

StoreWriter::~StoreWriter() {
  for (auto& lane : lanes_) {
    {
      std::lock_guard lock(lane->mutex);
      lane->stop = true;
    }
    lane->wake.notify_all();
  }
  for (auto& lane : lanes_) lane->thread.join();
}

void StoreWriter::submit(std::string_view key, Work work, Done done) {
  StoreWriter& owner = lanes_owner();
  if (owner.inline_store_) {
    std::exception_ptr error;
    try {
      work(*owner.inline_store_);
    } catch (...) {
      error = std::current_exception();
    }
    done(error);
    return;
  }
  Lane& lane = *owner.lanes_[owner.lane_of(key)];
  {
    std::lock_guard lock(lane.mutex);
    lane.queue.push_back(Job{std::move(work), std::move(done), &complete_});
  }
  lane.wake.notify_one();
}

size_t StoreWriter::lane_of(std::string_view key) const {
  if (shared_) return shared_->lane_of(key);
  return lanes_.empty() ? 0 : std::hash<std::string_view>{}(key) % lanes_.size();
}

void StoreWriter::run(Lane& lane) {
  for (;;) {
    std::vector<Job> batch;
    {
      std::unique_lock lock(lane.mutex);
      lane.wake.wait(lock, [&] { return lane.stop || !lane.queue.empty(); });
      if (lane.queue.empty()) return;  // stopping, and nothing is left
      while (!lane.queue.empty() && batch.size() < max_batch_) {
        batch.push_back(std::move(lane.queue.front()));
        lane.queue.pop_front();
      }
      lane.running = true;
    }
    // Each piece of work succeeds or fails alone (a store method inside one
    // commit is a savepoint of its own); the commit failing fails them all.
    auto errors = std::make_shared<std::vector<std::exception_ptr>>(batch.size());
    std::vector<std::function<void()>> pieces;
    pieces.reserve(batch.size());
    for (Job& job : batch) pieces.push_back([&job, &lane] { job.work(*lane.store); });
    const auto started = std::chrono::steady_clock::now();
    if (pieces.size() == 1) {
      // A piece alone needs no batch's transaction around it: its writes
      // commit as they would on their own, in fewer round trips.
      try {
        pieces[0]();
      } catch (...) {
        (*errors)[0] = std::current_exception();
      }
    } else {
      try {
        lane.store->in_one_commit(pieces, *errors);
      } catch (...) {
        for (auto& e : *errors)
          if (!e) e = std::current_exception();
      }
    }
    // Each completion goes where its work came from (the hubs sharing these
    // lanes), in the order of the work.
    std::vector<const Complete*> targets;
    for (const Job& job : batch)
      if (std::find(targets.begin(), targets.end(), job.complete) == targets.end()) targets.push_back(job.complete);
    for (const Complete* target : targets) {
      auto dones = std::make_shared<std::vector<std::pair<Done, std::exception_ptr>>>();
      for (size_t i = 0; i < batch.size(); ++i)
        if (batch[i].complete == target) dones->emplace_back(std::move(batch[i].done), (*errors)[i]);
      (*target)([dones] {
        for (auto& [done, error] : *dones) done(error);
      });
    }
    {
      std::lock_guard lock(lane.mutex);
      lane.running = false;
      lane.jobs += batch.size();
      ++lane.batches;
      lane.commit_ns += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - started).count());
    }
    lane.idle.notify_all();
  }
}

size_t StoreWriter::waiting() const {
  if (shared_) return shared_->waiting();
  size_t n = 0;
  for (const auto& lane : lanes_) {
    std::lock_guard lock(lane->mutex);
    n += lane->queue.size();
  }
  return n;
}

bool StoreWriter::wait_idle(int64_t timeout_ms) {
  if (shared_) return shared_->wait_idle(timeout_ms);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (auto& lane : lanes_) {
    std::unique_lock lock(lane->mutex);
    if (!lane->idle.wait_until(lock, deadline, [&] { return lane->queue.empty() && !lane->running; }))
      return false;
  }
  return true;
}

uint64_t StoreWriter::total(uint64_t Lane::*counter) const {
  if (shared_) return shared_->total(counter);
  uint64_t n = 0;
  for (auto& lane : lanes_) {
    std::lock_guard lock(lane->mutex);
    n += (*lane).*counter;
  }
  return n;
}

}  // namespace makruk::server
