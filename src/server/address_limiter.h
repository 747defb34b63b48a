// Per-address limits: how many times an address did something in the last
// minute, counted by this instance alone or by all sharing a bus.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "server/buses/bus.h"

namespace makruk::server {

// Sliding one-minute windows of events per address (thread-safe).
class AddressLimiter {
 public:
  // True when `ip` has had fewer than `limit` events in the minute before
  // `now` (always for limit 0); records one event when `record`.
  bool allow(const std::string& ip, int64_t now, int limit, bool record = true);
  // Forgets the windows that have emptied (call now and then).
  void sweep(int64_t now);
  // Instances sharing a bus count together under `name` (while the bus
  // answers; otherwise each counts alone).
  void share(Bus* bus, std::string name) {
    bus_ = bus;
    name_ = std::move(name);
  }
  size_t size() const {
    std::lock_guard lock(mutex_);
    return events_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::deque<int64_t>> events_;
  Bus* bus_ = nullptr;
  std::string name_;
};

}  // namespace makruk::server
