#include "server/address_limiter.h"

#include <algorithm>

namespace makruk::server {

namespace {
constexpr int64_t MINUTE_MS = 60000;

void trim(std::deque<int64_t>& times, int64_t now) {
  while (!times.empty() && times.front() <= now - MINUTE_MS) times.pop_front();
}
}  // namespace

bool AddressLimiter::allow(const std::string& ip, int64_t now, int limit, bool record) {
  if (limit <= 0) return true;
  bool allowed, asks;
  {
    std::lock_guard lock(state_->mutex);
    Window& w = state_->windows[ip];
    trim(w.mine, now);
    const int64_t others = now - w.others_at < MINUTE_MS ? w.others : 0;
    allowed = int64_t(w.mine.size()) + others < limit;
    if (allowed && record) w.mine.push_back(now);
    asks = bus_ && ((allowed && record) || now - w.asked_at >= ASK_GAP_MS);
    if (asks) w.asked_at = now;
    // Alone, an empty window goes at once; shared, it stays (with when it
    // was last asked) until the sweep.
    if (!bus_ && w.mine.empty()) state_->windows.erase(ip);
  }
  if (asks) ask(ip, now, allowed && record);
  return allowed;
}

void AddressLimiter::ask(const std::string& ip, int64_t now, bool record) {
  ++state_->asking;
  bus_->count(name_ + ":" + ip, now, record, [state = state_, ip, now](std::optional<int64_t> total) {
    if (total) {
      std::lock_guard lock(state->mutex);
      Window& w = state->windows[ip];
      // The others' events: the count less this instance's own up to then.
      const int64_t mine = std::count_if(w.mine.begin(), w.mine.end(),
                                         [now](int64_t t) { return t > now - MINUTE_MS && t <= now; });
      w.others = std::max<int64_t>(0, *total - mine);
      w.others_at = now;
    }
    --state->asking;
  });
}

void AddressLimiter::sweep(int64_t now) {
  std::lock_guard lock(state_->mutex);
  for (auto it = state_->windows.begin(); it != state_->windows.end();) {
    Window& w = it->second;
    trim(w.mine, now);
    const bool empty = w.mine.empty() && now - w.others_at >= MINUTE_MS && now - w.asked_at >= ASK_GAP_MS;
    it = empty ? state_->windows.erase(it) : std::next(it);
  }
}

}  // namespace makruk::server
