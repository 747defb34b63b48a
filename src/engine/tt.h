// The transposition table, shared by all search threads. Entries are written
// without locks; a torn entry can only yield a wrong hint, and every move taken
// from the table is checked against the legal moves before use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "evaluate.h"

namespace makruk::engine {

enum Bound : uint8_t { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

struct TTEntry {
  uint32_t key32;
  int16_t value;
  int16_t eval;
  uint16_t move;
  int8_t depth;
  uint8_t genBound;  // generation (6 bits) | bound (2 bits)

  Bound bound() const { return Bound(genBound & 3); }
};

class TranspositionTable {
 public:
  static constexpr int CLUSTER = 4;

  void resize(size_t megabytes);
  void clear();
  void new_search() {
    generation_ = uint8_t((generation_ + 4) & 0xFC);
    if (!generation_) generation_ = 4;  // genBound 0 marks an empty entry
  }
  // Returns the entry for key (hit = true) or the one to replace.
  TTEntry* probe(uint64_t key, bool& hit);
  void store(TTEntry* e, uint64_t key, Value v, Value eval, Bound b, int depth, uint16_t move);
  // Starts loading the key's cluster into the cache (a search calls it right after making a
  // move, so the child's probe finds it there).
  void prefetch(uint64_t key) const { __builtin_prefetch(&table_[index(key)]); }
  // Per mille of entries written in the current search.
  int hashfull() const;

 private:
  struct Cluster {
    TTEntry entry[CLUSTER];
  };
  size_t index(uint64_t key) const { return size_t((unsigned __int128)key * clusters_ >> 64); }
  std::unique_ptr<Cluster[]> table_;
  size_t clusters_ = 0;
  uint8_t generation_ = 0;
};

// Mate scores are stored relative to the node, not the root.
inline Value value_to_tt(Value v, int ply) {
  return v >= VALUE_MATE_IN_MAX_PLY ? v + ply : v <= -VALUE_MATE_IN_MAX_PLY ? v - ply : v;
}
inline Value value_from_tt(Value v, int ply) {
  return v >= VALUE_MATE_IN_MAX_PLY ? v - ply : v <= -VALUE_MATE_IN_MAX_PLY ? v + ply : v;
}

}  // namespace makruk::engine
