#include "tt.h"

#include <algorithm>
#include <cstring>

namespace makruk::engine {

void TranspositionTable::resize(size_t megabytes) {
  size_t n = std::max<size_t>(1, megabytes * 1024 * 1024 / sizeof(Cluster));
  clusters_ = n;
  table_ = std::make_unique<Cluster[]>(n);
  clear();
}

void TranspositionTable::clear() {
  if (table_) std::memset(static_cast<void*>(table_.get()), 0, clusters_ * sizeof(Cluster));
  generation_ = 0;
}

TTEntry* TranspositionTable::probe(uint64_t key, bool& hit) {
  Cluster& c = table_[index(key)];
  uint32_t k = uint32_t(key);
  for (TTEntry& e : c.entry)
    if (e.key32 == k && e.genBound) {
      e.genBound = uint8_t(generation_ | e.bound());  // refresh
      hit = true;
      return &e;
    }
  hit = false;
  // Replace the shallowest entry, preferring stale generations.
  TTEntry* worst = &c.entry[0];
  auto worth = [this](const TTEntry& e) {
    int age = ((generation_ - (e.genBound & 0xFC)) & 0xFC) / 4;
    return e.depth - 4 * age;
  };
  for (TTEntry& e : c.entry)
    if (worth(e) < worth(*worst)) worst = &e;
  return worst;
}

void TranspositionTable::store(TTEntry* e, uint64_t key, Value v, Value eval, Bound b, int depth,
                               uint16_t move) {
  uint32_t k = uint32_t(key);
  if (move || e->key32 != k) e->move = move;
  if (b == BOUND_EXACT || e->key32 != k || depth + 2 > e->depth) {
    e->key32 = k;
    e->value = int16_t(v);
    e->eval = int16_t(eval);
    e->depth = int8_t(std::clamp(depth, -1, 127));
    e->genBound = uint8_t(generation_ | b);
  }
}

int TranspositionTable::hashfull() const {
  int used = 0;
  size_t n = std::min<size_t>(1000, clusters_);
  for (size_t i = 0; i < n; ++i)
    for (const TTEntry& e : table_[i].entry)
      used += e.genBound && (e.genBound & 0xFC) == generation_;
  return int(used * 1000 / (n * CLUSTER));
}

}  // namespace makruk::engine
