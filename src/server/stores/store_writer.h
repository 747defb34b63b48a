// Writes to the store away from the thread that serves tables. Each piece of
// work comes with a key (a table's code): work with one key runs in the order
// it was given, on one lane. A lane is a thread with a store connection of
// its own; it takes everything waiting for it at once and runs it as one
// batch, in one commit where the store has that (Store::in_one_commit:
// SQLite's group commit); a batch of one piece runs as it would alone. What each piece threw, or nothing, goes to its
// `done`, handed to `complete` (the hub's executor) in the order of the work.
//
// Without lanes (tests, tools), work runs at once on the caller's thread, and
// `done` is called before submit returns.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "server/stores/store.h"

namespace makruk::server {

class StoreWriter {
 public:
  using Work = std::function<void(Store&)>;
  using Done = std::function<void(std::exception_ptr)>;
  using Complete = std::function<void(std::function<void()>)>;

  // Work runs at once on `store`, on the caller's thread.
  explicit StoreWriter(Store& store);
  // One lane (a thread) per connection in `lanes`; a batch holds at most
  // `max_batch` pieces of work.
  StoreWriter(std::vector<std::unique_ptr<Store>> lanes, Complete complete, size_t max_batch = 256);
  // Shares `shared`'s lanes (threads and connections) and its figures, its
  // own work's completions going to `complete` instead: each hub of a
  // process has one, over the one writer. `shared` must outlive it.
  StoreWriter(StoreWriter& shared, Complete complete);
  // Finishes the work given so far (its completions still go to `complete`).
  ~StoreWriter();
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  void submit(std::string_view key, Work work, Done done);
  // Waits until every piece of work given so far has run (and its completion
  // was handed on), at most `timeout_ms`; false if it had not by then.
  bool wait_idle(int64_t timeout_ms);

  size_t lanes() const { return lanes_owner().lanes_.size(); }
  // The lane that runs a key's work.
  size_t lane_of(std::string_view key) const;
  // Pieces of work run, and the batches (commits) they took.
  uint64_t jobs() const { return total(&Lane::jobs); }
  uint64_t batches() const { return total(&Lane::batches); }
  // Time spent in commits, in all (seconds), and the work waiting now.
  double commit_seconds() const { return double(total(&Lane::commit_ns)) / 1e9; }
  size_t waiting() const;

 private:
  struct Job {
    Work work;
    Done done;
    const Complete* complete;  // where its completion goes
  };
  struct Lane {
    std::unique_ptr<Store> store;
    std::mutex mutex;
    std::condition_variable wake, idle;
    std::deque<Job> queue;
    bool running = false;  // a batch taken from the queue is being run
    bool stop = false;
    uint64_t jobs = 0, batches = 0, commit_ns = 0;
    std::thread thread;
  };
  void run(Lane& lane);
  uint64_t total(uint64_t Lane::*counter) const;

  StoreWriter& lanes_owner() { return shared_ ? *shared_ : *this; }
  const StoreWriter& lanes_owner() const { return shared_ ? *shared_ : *this; }

  StoreWriter* shared_ = nullptr;  // whose lanes these are, when not its own
  Store* inline_store_ = nullptr;
  Complete complete_;
  size_t max_batch_ = 256;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace makruk::server
