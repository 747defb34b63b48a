#include "server/address_limiter.h"

namespace makruk::server {

namespace {
constexpr int64_t MINUTE_MS = 60000;
}

bool AddressLimiter::allow(const std::string& ip, int64_t now, int limit, bool record) {
  if (limit <= 0) return true;
  if (bus_)
    if (auto shared = bus_->allow(name_ + ":" + ip, now, limit, record)) return *shared;
  std::lock_guard lock(mutex_);
  auto it = events_.find(ip);
  if (it != events_.end()) {
    auto& times = it->second;
    while (!times.empty() && times.front() <= now - MINUTE_MS) times.pop_front();
    if (int(times.size()) >= limit) return false;
  }
  if (record) events_[ip].push_back(now);
  else if (it != events_.end() && it->second.empty()) events_.erase(it);
  return true;
}

void AddressLimiter::sweep(int64_t now) {
  std::lock_guard lock(mutex_);
  std::erase_if(events_, [now](const auto& entry) { return entry.second.back() <= now - MINUTE_MS; });
}

}  // namespace makruk::server
