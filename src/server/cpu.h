// The CPU opponent: engine searches on worker threads, so that a search never
// stalls the network or the hub.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/position.h"

namespace makruk::server {

struct CpuJob {
  Position position;  // with its history and count
  int level = 8;
  // The actions to play, in order (e.g. {"stop:b", "h8a8"}), on the hub's side.
  std::function<void(std::vector<std::string>)> done;
};

class CpuPool {
 public:
  explicit CpuPool(int threads);
  ~CpuPool();
  void submit(CpuJob job);

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<CpuJob> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// What the CPU does in a position: its move, preceded in declaration mode by
// starting a count it qualifies for, or by stopping its count when it can win.
std::vector<std::string> cpu_actions(const Position& pos, int level);

}  // namespace makruk::server
