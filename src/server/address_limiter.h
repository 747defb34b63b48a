// Per-address limits: how many times an address did something in the last
// minute, counted by this instance alone or by all sharing a bus.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "server/buses/bus.h"

namespace makruk::server {

// Sliding one-minute windows of events per address (thread-safe).
//
// Shared by instances through a bus, a decision never waits for it: each
// instance decides on its own events and on what it last learned of the
// others' (the bus's count, asked off the caller's thread after each event,
// and at most every ASK_GAP_MS otherwise). So a burst spread over instances
// within one round trip to the bus may pass each instance's limit once;
// after that the instances count together. While the bus does not answer,
// each instance counts alone.
class AddressLimiter {
 public:
  AddressLimiter() : state_(std::make_shared<State>()) {}
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
  // Counts together with `first` (the hubs of one process: one window per
  // address for all of them, exact whatever hub an event reaches).
  void count_with(const AddressLimiter& first) { state_ = first.state_; }
  size_t size() const {
    std::lock_guard lock(state_->mutex);
    return state_->windows.size();
  }
  // Counts asked of the bus and not yet answered (tests wait for them).
  int asking() const { return state_->asking.load(); }

  static constexpr int64_t ASK_GAP_MS = 1000;

 private:
  struct Window {
    std::deque<int64_t> mine;  // this instance's events
    int64_t others = 0;        // the other instances' events, as last learned
    int64_t others_at = 0;     // when (they count for a minute after)
    int64_t asked_at = -ASK_GAP_MS;
  };
  // Held by the bus's answers too, which may come after the limiter is gone.
  struct State {
    std::mutex mutex;
    std::map<std::string, Window> windows;
    std::atomic<int> asking{0};
  };
  void ask(const std::string& ip, int64_t now, bool record);

  std::shared_ptr<State> state_;
  Bus* bus_ = nullptr;
  std::string name_;
};

}  // namespace makruk::server
