#include "server/tables/matchmaker.h"

#include <algorithm>

namespace makruk::server {

namespace {

// One field of two wishes: equal, or one of them open; the agreed value.
std::optional<std::string> meet(const std::string& a, const std::string& b, const std::string& fallback) {
  if (a.empty()) return b.empty() ? fallback : b;
  if (b.empty() || a == b) return a;
  return std::nullopt;
}

}  // namespace

std::optional<SeekWish> Matchmaker::agree(const SeekWish& a, const SeekWish& b) {
  auto variant = meet(a.variant, b.variant, "makruk");
  auto counting = meet(a.counting, b.counting, "auto");
  auto mode = meet(a.mode, b.mode, "live");
  if (!variant || !counting || !mode) return std::nullopt;
  return SeekWish{*variant, *counting, *mode};
}

std::optional<Pairing> Matchmaker::seek(Seek s, uint64_t* replaced) {
  if (replaced) *replaced = 0;
  auto same = [&](const Seek& q) { return q.id == s.id || (!s.browser.empty() && q.browser == s.browser); };
  if (auto it = std::find_if(queue_.begin(), queue_.end(), same); it != queue_.end()) {
    if (replaced && it->id != s.id) *replaced = it->id;
    queue_.erase(it);
  }
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (!it->browser.empty() && it->browser == s.browser) continue;  // never oneself
    if (!pair_same_address && it->ip == s.ip) continue;              // nor one's own address
    auto agreed = agree(it->wish, s.wish);
    if (!agreed) continue;
    Pairing p{std::move(*it), std::move(s), *agreed};
    queue_.erase(it);
    return p;
  }
  // In order of waiting: after everyone who has waited as long (a seek sent
  // back to the front has the earliest time).
  auto at = std::upper_bound(queue_.begin(), queue_.end(), s.since,
                             [](int64_t since, const Seek& q) { return since < q.since; });
  queue_.insert(at, std::move(s));
  return std::nullopt;
}

bool Matchmaker::cancel(uint64_t id) {
  auto it = std::find_if(queue_.begin(), queue_.end(), [id](const Seek& q) { return q.id == id; });
  if (it == queue_.end()) return false;
  queue_.erase(it);
  return true;
}

size_t Matchmaker::waiting_from(const std::string& ip) const {
  return size_t(std::count_if(queue_.begin(), queue_.end(), [&](const Seek& q) { return q.ip == ip; }));
}

}  // namespace makruk::server
