#include "egtb.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace makruk::engine {

namespace {

// The tables' own piece codes. Every table has the hunter as White (a Black
// hunter is probed on the board mirrored top to bottom, colours swapped, so a
// Black khon becomes a White one). A table with a khon keeps the hunter's king
// on files a–d (the board mirrored left to right otherwise); a table without
// one keeps it in the triangle a1–d1–d4 (any of the board's eight symmetries:
// rook, knight, met and king move alike in every direction).
enum TbPiece : int { TB_ROOK = 0, TB_KHON = 1, TB_KNIGHT = 2, TB_MET = 3, TB_PIECES = 4 };
constexpr char LETTER[TB_PIECES] = {'R', 'S', 'N', 'M'};
constexpr int MAX_K = 3;
constexpr int SLOTS = 4 + 10 + 20;  // every multiset of 1, 2 or 3 piece types

int tb_piece(PieceType pt) {
  switch (pt) {
    case ROOK: return TB_ROOK;
    case KHON: return TB_KHON;
    case KNIGHT: return TB_KNIGHT;
    case MET:
    case PROMOTED: return TB_MET;
    default: return -1;
  }
}


// Squares a White piece of type t attacks from s.
inline Bitboard attacks(int t, Square s, Bitboard occupied) {
  switch (t) {
    case TB_ROOK: return rook_attacks(s, occupied);
    case TB_KHON: return khon_attacks(WHITE, s);
    case TB_KNIGHT: return knight_attacks(s);
    default: return met_attacks(s);
  }
}

// Squares from which a White piece of type t can have stepped (without
// capturing) to s; the caller removes the occupied ones.
inline Bitboard origins(int t, Square s, Bitboard occupied) {
  switch (t) {
    case TB_ROOK: return rook_attacks(s, occupied);
    case TB_KHON: return khon_attacks(BLACK, s);  // a White khon steps forward
    case TB_KNIGHT: return knight_attacks(s);
    default: return met_attacks(s);
  }
}

// The board's symmetries: bit 2 transposes (a1–h8 diagonal), then bit 0
// mirrors the files, bit 1 the ranks.
inline Square transform(int t, Square s) {
  if (t & 4) s = Square((s & 7) << 3 | s >> 3);
  if (t & 1) s ^= 7;
  if (t & 2) s ^= 56;
  return s;
}
inline bool on_diagonal(Square s) { return file_of(s) == rank_of(s); }

struct Geometry {
  int tri_index[64];   // the triangle's king squares 0–9, else -1
  Square tri_square[10];
  int canon[64];       // the symmetry that takes a square into the triangle
  uint64_t binom[65][4];
  uint8_t pair[2016][2];     // unordered pairs, ascending, by rank
  uint8_t triple[41664][3];  // unordered triples, ascending, by rank
  Geometry() {
    int n = 0;
    for (int s = 0; s < 64; ++s) {
      const int f = s & 7, r = s >> 3;
      tri_index[s] = (f < 4 && r <= f) ? n++ : -1;
      if (tri_index[s] >= 0) tri_square[tri_index[s]] = Square(s);
    }
    for (int s = 0; s < 64; ++s)
      for (int t = 0; t < 8; ++t)
        if (tri_index[transform(t, Square(s))] >= 0) {
          canon[s] = t;
          break;
        }
    for (int x = 0; x <= 64; ++x)
      for (int r = 0; r < 4; ++r)
        binom[x][r] = r == 0 ? 1 : x == 0 ? 0 : binom[x - 1][r - 1] + binom[x - 1][r];
    n = 0;
    for (int b = 1; b < 64; ++b)
      for (int a = 0; a < b; ++a, ++n) pair[n][0] = uint8_t(a), pair[n][1] = uint8_t(b);
    n = 0;
    for (int c = 2; c < 64; ++c)
      for (int b = 1; b < c; ++b)
        for (int a = 0; a < b; ++a, ++n)
          triple[n][0] = uint8_t(a), triple[n][1] = uint8_t(b), triple[n][2] = uint8_t(c);
  }
};
const Geometry& geo() {
  static const Geometry g;
  return g;
}

// Defender-to-move entries: 0 no forced mate (or not decided yet while
// building), BLOCKED a draw or not a position, else the distance to mate in
// plies + 1. The hunter-to-move values are one ply of search over these.
constexpr uint8_t BLOCKED = 0xFF;

struct Table {
  std::once_flag once;
  std::atomic<bool> ready{false};
  std::atomic<bool> requested{false};  // a background build or load has been started
  int k = 0;
  int type[MAX_K] = {0, 0, 0};  // ascending
  bool eightfold = false;       // no khon: all eight symmetries
  int groups = 0;               // runs of one type
  int group_n[MAX_K] = {0, 0, 0};
  size_t group_stride[MAX_K] = {0, 0, 0};
  size_t combos = 1;
  size_t kings = 32;
  size_t half = 0;  // positions with the defender to move
  std::vector<uint8_t> val;     // a table built here
  const uint8_t* data = nullptr;  // its entries: val's, or a file's mapped into memory
  EgtbStats stats;
};

// Never freed: a background build still running at exit must not find its
// table destroyed under it.
void set_layout(Table& tb, int k, const int* t);

Table* all_tables() {
  static Table* tables = [] {
    Table* t = new Table[SLOTS];
    int types[MAX_K] = {0, 0, 0};
    for (int k = 1, slot = 0; k <= MAX_K; ++k) {
      // Every ascending k-tuple of types, in slot order.
      std::fill(types, types + k, 0);
      for (;;) {
        set_layout(t[slot++], k, types);
        int j = k - 1;
        while (j >= 0 && types[j] == TB_PIECES - 1) --j;
        if (j < 0) break;
        ++types[j];
        for (int x = j + 1; x < k; ++x) types[x] = types[j];
      }
    }
    return t;
  }();
  return tables;
}

// The slot of a material given as k types in ascending order (all_tables
// lays the slots out).
int slot_of(int k, const int* t) {
  for (int slot = 0; slot < SLOTS; ++slot) {
    const Table& tb = all_tables()[slot];
    if (tb.k == k && std::equal(t, t + k, tb.type)) return slot;
  }
  return -1;
}

std::string table_name(const Table& tb) {
  std::string s = "K";
  for (int j = 0; j < tb.k; ++j) s += LETTER[tb.type[j]];
  return s + "K";
}

void set_layout(Table& tb, int k, const int* t) {
  tb.k = k;
  tb.eightfold = true;
  for (int j = 0; j < k; ++j) {
    tb.type[j] = t[j];
    if (t[j] == TB_KHON) tb.eightfold = false;
  }
  tb.kings = tb.eightfold ? 10 : 32;
  tb.groups = 0;
  for (int j = 0; j < k; ++j) {
    if (j == 0 || t[j] != t[j - 1]) tb.group_n[tb.groups++] = 0;
    ++tb.group_n[tb.groups - 1];
  }
  tb.combos = 1;
  for (int g = tb.groups - 1; g >= 0; --g) {
    tb.group_stride[g] = tb.combos;
    tb.combos *= geo().binom[64][tb.group_n[g]];
  }
  tb.half = tb.kings * tb.combos * 64;
}

// Index of a position already in the table's region (the hunter's king on
// files a–d, or in the triangle). Pieces in the order of tb.type.
size_t raw_index(const Table& tb, Square wk, const Square* p, Square bk) {
  const Geometry& g = geo();
  const size_t king = tb.eightfold ? size_t(g.tri_index[wk]) : size_t(rank_of(wk) * 4 + file_of(wk));
  size_t combo = 0;
  for (int gi = 0, at = 0; gi < tb.groups; at += tb.group_n[gi], ++gi) {
    const int n = tb.group_n[gi];
    Square s[MAX_K];
    for (int j = 0; j < n; ++j) s[j] = p[at + j];
    if (n > 1 && s[0] > s[1]) std::swap(s[0], s[1]);  // ascending, n <= 3
    if (n > 2 && s[1] > s[2]) std::swap(s[1], s[2]);
    if (n > 2 && s[0] > s[1]) std::swap(s[0], s[1]);
    size_t rank = 0;
    for (int j = 0; j < n; ++j) rank += g.binom[s[j]][j + 1];
    combo += rank * tb.group_stride[gi];
  }
  return (king * tb.combos + combo) << 6 | size_t(bk);
}

// Index of any position of the table's material, hunter as White.
size_t index_of(const Table& tb, Square wk, const Square* p, Square bk) {
  Square q[MAX_K];
  if (!tb.eightfold) {
    if (file_of(wk) < 4) return raw_index(tb, wk, p, bk);
    for (int j = 0; j < tb.k; ++j) q[j] = p[j] ^ 7;
    return raw_index(tb, wk ^ 7, q, bk ^ 7);
  }
  const int t = geo().canon[wk];
  for (int j = 0; j < tb.k; ++j) q[j] = transform(t, p[j]);
  const Square twk = transform(t, wk), tbk = transform(t, bk);
  const size_t i = raw_index(tb, twk, q, tbk);
  if (!on_diagonal(twk)) return i;
  // The king on the diagonal: the position and its transpose are both in the
  // region; the lower index stands for both.
  for (int j = 0; j < tb.k; ++j) q[j] = transform(4, q[j]);
  return std::min(i, raw_index(tb, twk, q, transform(4, tbk)));
}

void decode(const Table& tb, size_t i, Square& wk, Square* p, Square& bk) {
  const Geometry& g = geo();
  bk = Square(i & 63);
  i >>= 6;
  size_t combo = i % tb.combos;
  const size_t king = i / tb.combos;
  wk = tb.eightfold ? g.tri_square[king] : make_square(int(king & 3), int(king >> 2));
  for (int gi = 0, at = 0; gi < tb.groups; at += tb.group_n[gi], ++gi) {
    const size_t rank = combo / tb.group_stride[gi];
    combo %= tb.group_stride[gi];
    const int n = tb.group_n[gi];
    for (int j = 0; j < n; ++j)
      p[at + j] = Square(n == 1 ? uint8_t(rank) : n == 2 ? g.pair[rank][j] : g.triple[rank][j]);
  }
}

inline Bitboard pieces_bb(const Table& tb, const Square* p) {
  Bitboard b = 0;
  for (int j = 0; j < tb.k; ++j) b |= square_bb(p[j]);
  return b;
}

// Everything the hunter's pieces (not its king) attack, through `occupied`.
inline Bitboard piece_attacks(const Table& tb, const Square* p, Bitboard occupied) {
  Bitboard a = 0;
  for (int j = 0; j < tb.k; ++j) a |= attacks(tb.type[j], p[j], occupied);
  return a;
}

// The hunter to move: the distance to mate in plies (one ply of search over
// the defender-to-move entries), or -1 when it has no forced mate.
int hunter_dtm(const Table& tb, Square wk, const Square* p, Square bk) {
  const Bitboard occ = pieces_bb(tb, p) | square_bb(wk) | square_bb(bk);
  const uint8_t* dv = tb.data;
  int best = BLOCKED;
  Square q[MAX_K];
  std::copy(p, p + tb.k, q);
  for (int j = 0; j < tb.k; ++j) {
    for (Bitboard to = attacks(tb.type[j], p[j], occ) & ~occ; to;) {
      q[j] = pop_lsb(to);
      const uint8_t v = dv[index_of(tb, wk, q, bk)];
      if (v && v != BLOCKED) best = std::min<int>(best, v);
    }
    q[j] = p[j];
  }
  for (Bitboard to = king_attacks(wk) & ~occ & ~king_attacks(bk); to;) {
    const uint8_t v = dv[index_of(tb, pop_lsb(to), p, bk)];
    if (v && v != BLOCKED) best = std::min<int>(best, v);
  }
  return best == BLOCKED ? -1 : best;  // (v - 1) + 1
}

const Table& get_table(int slot);

// The table left after the defender takes piece j (nullptr: bare kings).
const Table* sub_table(const Table& tb, int j) {
  if (tb.k == 1) return nullptr;
  int t[MAX_K], n = 0;
  for (int x = 0; x < tb.k; ++x)
    if (x != j) t[n++] = tb.type[x];
  return &get_table(slot_of(n, t));
}

// The defender (to move, king on bk) takes every piece it can: false when one
// capture escapes the mate. Otherwise `worst` is the longest distance to mate
// after a capture, -1 with none.
bool captures_lose(const Table& tb, const Table* const* sub, Square wk, const Square* p,
                   Bitboard caps, int& worst) {
  worst = -1;
  while (caps) {
    const Square c = pop_lsb(caps);
    int j = 0;
    while (p[j] != c) ++j;
    if (!sub[j]) return false;
    Square q[MAX_K];
    for (int x = 0, n = 0; x < tb.k; ++x)
      if (x != j) q[n++] = p[x];
    const int v = hunter_dtm(*sub[j], wk, q, c);
    if (v < 0) return false;
    worst = std::max(worst, v);
  }
  return true;
}

struct Bits {
  std::vector<uint64_t> w;
  explicit Bits(size_t n) : w((n + 63) / 64, 0) {}
  bool test(size_t i) const { return w[i >> 6] >> (i & 63) & 1; }
  void set(size_t i) { w[i >> 6] |= uint64_t(1) << (i & 63); }
};

void build(Table& tb) {
  const auto start = std::chrono::steady_clock::now();
  const size_t half = tb.half;
  std::vector<uint8_t>& val = tb.val;
  val.assign(half, 0);
  uint8_t* const dv = val.data();
  Bits won(half), fresh(half);  // hunter to move: won; won at the distance now processed
  const Table* sub[MAX_K] = {nullptr, nullptr, nullptr};
  for (int j = 0; j < tb.k; ++j) sub[j] = sub_table(tb, j);

  int maxd = -1;
  auto set_dtm = [&](uint8_t& slot, int dtm) {
    if (dtm + 1 >= BLOCKED) {
      std::fprintf(stderr, "egtb: %s distance to mate %d does not fit a byte\n",
                   table_name(tb).c_str(), dtm);
      std::abort();
    }
    slot = uint8_t(dtm + 1);
    maxd = std::max(maxd, dtm);
  };

  // Initial pass: positions, checkmates, stalemates, captures; the legal
  // hunter-to-move positions counted.
  size_t legal = 0;
  for (size_t king = 0; king < tb.kings; ++king) {
    for (size_t pc = 0; pc < tb.combos; ++pc) {
      const size_t base = (king * tb.combos + pc) << 6;
      Square wk, p[MAX_K], unused;
      decode(tb, base, wk, p, unused);
      const Bitboard pieces = pieces_bb(tb, p);
      if (popcount(pieces) != tb.k || (pieces & square_bb(wk))) {
        std::memset(dv + base, BLOCKED, 64);
        continue;
      }
      const Bitboard occ = pieces | square_bb(wk);
      const Bitboard att = king_attacks(wk) | piece_attacks(tb, p, occ);  // through the defender's king
      const Bitboard forbidden = occ | king_attacks(wk);
      const bool diagonal = tb.eightfold && on_diagonal(wk);
      for (Square bk = 0; bk < 64; ++bk) {
        const size_t i = base | size_t(bk);
        if ((forbidden & square_bb(bk)) || (diagonal && index_of(tb, wk, p, bk) != i)) {
          dv[i] = BLOCKED;
          continue;
        }
        const bool check = att & square_bb(bk);
        if (!check) ++legal;
        const Bitboard moves = king_attacks(bk) & ~att;
        int worst;
        if (!captures_lose(tb, sub, wk, p, moves & pieces, worst)) {
          dv[i] = BLOCKED;  // a capture draws
          continue;
        }
        if (!moves) {
          if (check) set_dtm(dv[i], 0);  // checkmate
          else dv[i] = BLOCKED;          // stalemate
          continue;
        }
        if (!(moves & ~pieces)) set_dtm(dv[i], worst + 1);  // only captures, each a loss
      }
    }
  }

  // Retrograde passes. Even d: the defender, to move, is mated after d plies;
  // the hunter's moves that led there win in d + 1. Odd d: the hunter, to
  // move, mates in d; a defender position whose every move now loses is lost.
  int max_win = 0;
  size_t wins = 0;
  for (int d = 0; d <= maxd; ++d) {
    if ((d & 1) == 0) {
      const uint8_t target = uint8_t(d + 1);
      for (size_t i = 0; i < half; ++i) {
        if (dv[i] != target) continue;
        Square wk, p[MAX_K], bk;
        decode(tb, i, wk, p, bk);
        const Bitboard occ = pieces_bb(tb, p) | square_bb(wk) | square_bb(bk);
        auto win = [&](Square k, const Square* q, Bitboard o) {
          if ((king_attacks(k) | piece_attacks(tb, q, o)) & square_bb(bk)) return;  // not legal
          const size_t x = index_of(tb, k, q, bk);
          if (won.test(x)) return;
          won.set(x);
          fresh.set(x);
          ++wins;
          max_win = d + 1;
          maxd = std::max(maxd, d + 1);
        };
        Square q[MAX_K];
        std::copy(p, p + tb.k, q);
        for (int j = 0; j < tb.k; ++j) {
          for (Bitboard from = origins(tb.type[j], p[j], occ) & ~occ; from;) {
            q[j] = pop_lsb(from);
            win(wk, q, occ ^ square_bb(p[j]) ^ square_bb(q[j]));
          }
          q[j] = p[j];
        }
        for (Bitboard from = king_attacks(wk) & ~occ & ~king_attacks(bk); from;) {
          const Square f = pop_lsb(from);
          win(f, p, occ ^ square_bb(wk) ^ square_bb(f));
        }
      }
    } else {
      for (size_t w = 0; w < fresh.w.size(); ++w) {
        for (uint64_t bits = fresh.w[w]; bits; bits &= bits - 1) {
          const size_t i = w << 6 | size_t(__builtin_ctzll(bits));
          Square wk, p[MAX_K], bk;
          decode(tb, i, wk, p, bk);
          const Bitboard pieces = pieces_bb(tb, p);
          const Bitboard occ = pieces | square_bb(wk);
          const Bitboard att = king_attacks(wk) | piece_attacks(tb, p, occ);
          for (Bitboard from = king_attacks(bk) & ~occ & ~king_attacks(wk); from;) {
            const Square f = pop_lsb(from);
            uint8_t& slot = dv[index_of(tb, wk, p, f)];
            if (slot) continue;  // decided, or a draw
            const Bitboard moves = king_attacks(f) & ~att;
            bool all = true;
            for (Bitboard quiet = moves & ~pieces; quiet && all;)
              all = won.test(index_of(tb, wk, p, pop_lsb(quiet)));
            if (!all) continue;
            int worst;
            captures_lose(tb, sub, wk, p, moves & pieces, worst);  // all lose: else BLOCKED
            set_dtm(slot, std::max(d, worst) + 1);
          }
        }
        fresh.w[w] = 0;
      }
    }
  }

  EgtbStats& s = tb.stats;
  s.name = table_name(tb);
  s.bytes = val.size();
  s.peak_bytes = val.size() + won.w.size() * 16;
  s.max_plies = max_win;
  s.wins = wins;
  s.legal = legal;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string& table_dir() {
  static std::string dir;
  return dir;
}
std::mutex& dir_mutex() {
  static std::mutex m;
  return m;
}
std::atomic<bool> build_three_in_search{false};
std::mutex& three_build_mutex() {  // one three-piece build at a time
  static std::mutex m;
  return m;
}

constexpr char FILE_MAGIC[4] = {'M', 'K', 'T', 'B'};
constexpr uint32_t FILE_VERSION = 1;

struct FileHeader {
  char magic[4];
  uint32_t version;
  char name[8];
  uint64_t half;
  uint64_t wins, legal;
  int32_t max_plies;
  int32_t pad;
};

std::string file_path(const std::string& dir, const Table& tb) {
  return dir + "/" + table_name(tb) + ".mktb";
}

// Whether path holds a table written by egtb_save for this material and
// layout (size and header; the entries are not checked). Opens it into fd.
bool open_table_file(const Table& tb, const std::string& path, FileHeader& h, int& fd) {
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  const std::string name = table_name(tb);
  const bool ok = ::fstat(fd, &st) == 0 && size_t(st.st_size) == sizeof h + tb.half &&
                  ::pread(fd, &h, sizeof h, 0) == ssize_t(sizeof h) && std::memcmp(h.magic, FILE_MAGIC, 4) == 0 &&
                  h.version == FILE_VERSION && std::string(h.name, strnlen(h.name, sizeof h.name)) == name &&
                  h.half == tb.half && h.legal <= tb.half && h.wins <= h.legal && h.max_plies >= 0 &&
                  h.max_plies < BLOCKED;
  if (!ok) ::close(fd);
  return ok;
}

bool file_present(const Table& tb, const std::string& dir) {
  if (dir.empty()) return false;
  FileHeader h{};
  int fd;
  if (!open_table_file(tb, file_path(dir, tb), h, fd)) return false;
  ::close(fd);
  return true;
}

// Maps a table written by egtb_save into memory (read-only, shared with
// other processes reading it); false, and the table untouched, when the file
// is missing or not a table of this material and layout.
bool load_table(Table& tb, const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  FileHeader h{};
  int fd;
  if (!open_table_file(tb, path, h, fd)) return false;
  const size_t size = sizeof h + tb.half;
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return false;  // never unmapped: a table, once there, stays
  tb.data = static_cast<const uint8_t*>(map) + sizeof h;
  EgtbStats& s = tb.stats;
  s.name = table_name(tb);
  s.bytes = size;
  s.peak_bytes = 0;
  s.max_plies = h.max_plies;
  s.wins = h.wins;
  s.legal = h.legal;
  s.from_file = true;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return true;
}

std::string current_dir() {
  std::lock_guard<std::mutex> lock(dir_mutex());
  return table_dir();
}

const Table& get_table(int slot) {
  Table& tb = all_tables()[slot];
  std::call_once(tb.once, [&tb] {
    init_bitboards();
    const std::string dir = current_dir();
    if (tb.k < MAX_K || dir.empty() || !load_table(tb, file_path(dir, tb))) {
      std::unique_lock<std::mutex> lock(three_build_mutex(), std::defer_lock);
      if (tb.k == MAX_K) lock.lock();
      build(tb);
      tb.data = tb.val.data();
    }
    tb.ready.store(true, std::memory_order_release);
  });
  return tb;
}

// A covered position in its table's frame: the hunter as White.
struct Located {
  int slot;
  Square wk, bk, p[MAX_K];
  bool hunter_to_move;
};

bool locate(const Position& pos, Located& at) {
  if (pos.pieces(PAWN) || pos.rights()) return false;
  Color hunter;
  if (pos.pieces(BLACK) == pos.pieces(BLACK, KING)) hunter = WHITE;
  else if (pos.pieces(WHITE) == pos.pieces(WHITE, KING)) hunter = BLACK;
  else return false;
  Bitboard hp = pos.pieces(hunter) & ~pos.pieces(KING);
  const int k = popcount(hp);
  if (k < 1 || k > MAX_K) return false;
  const int flip = hunter == BLACK ? 56 : 0;
  int t[MAX_K];
  for (int j = 0; j < k; ++j) {
    const Square s = pop_lsb(hp);
    t[j] = tb_piece(type_of(pos.piece_on(s)));
    if (t[j] < 0) return false;
    at.p[j] = s ^ flip;
  }
  for (int a = 1; a < k; ++a)  // types ascending
    for (int b = a; b > 0 && t[b - 1] > t[b]; --b) {
      std::swap(t[b - 1], t[b]);
      std::swap(at.p[b - 1], at.p[b]);
    }
  at.slot = slot_of(k, t);
  at.wk = pos.king_square(hunter) ^ flip;
  at.bk = pos.king_square(~hunter) ^ flip;
  at.hunter_to_move = pos.side_to_move() == hunter;
  return true;
}

bool parse_material(const std::string& material, int& k, int t[MAX_K]) {
  k = 0;
  for (char c : material) {
    if (c == 'K' || c == 'k') continue;
    if (k == MAX_K) return false;
    int x = -1;
    for (int y = 0; y < TB_PIECES; ++y)
      if (LETTER[y] == (c & ~0x20)) x = y;
    if (x < 0) return false;
    t[k++] = x;
  }
  for (int a = 1; a < k; ++a)  // ascending
    for (int b = a; b > 0 && t[b - 1] > t[b]; --b) std::swap(t[b - 1], t[b]);
  return k >= 1;
}

// Whether the search may probe the table now. Otherwise a two-piece table
// (about a second's work) is built on a thread of its own; a three-piece one
// (minutes, hundreds of MB) only when the search is allowed to build it: its
// file, if the table directory has one, was mapped when the directory was set.
bool available_without_waiting(Table& tb, int slot) {
  if (tb.ready.load(std::memory_order_acquire) || tb.k == 1) return true;
  if (tb.k == MAX_K && !build_three_in_search.load(std::memory_order_relaxed)) return false;
  if (!tb.requested.exchange(true)) {
    try {
      std::thread([slot] {
        try {
          get_table(slot);
        } catch (...) {  // out of memory: the search goes on without this table
        }
      }).detach();
    } catch (...) {
      tb.requested.store(false);  // no thread to be had: try again later
    }
  }
  return false;
}

// The material's table, read or built; nullptr (and why) for a bad name.
const Table* table_for(const std::string& material, std::string* error) {
  int k, t[MAX_K];
  if (!parse_material(material, k, t)) {
    if (error) *error = "not a material: " + material;
    return nullptr;
  }
  return &get_table(slot_of(k, t));
}

}  // namespace

bool egtb_covers(const Position& pos) {
  Located at;
  return locate(pos, at);
}

bool probe_dtm(const Position& pos, DtmProbe& out, bool wait) {
  Located at;
  if (!locate(pos, at)) return false;
  Table& tb = all_tables()[at.slot];
  if (!wait && !available_without_waiting(tb, at.slot)) return false;
  get_table(at.slot);
  if (at.hunter_to_move) {
    const int v = hunter_dtm(tb, at.wk, at.p, at.bk);
    out = v < 0 ? DtmProbe{} : DtmProbe{Wdl::Win, v};
  } else {
    const uint8_t v = tb.data[index_of(tb, at.wk, at.p, at.bk)];
    out = (!v || v == BLOCKED) ? DtmProbe{} : DtmProbe{Wdl::Loss, v - 1};
  }
  return true;
}

bool probe_dtm(const Position& pos, int& plies_to_mate) {
  DtmProbe p;
  if (!probe_dtm(pos, p)) return false;
  plies_to_mate = p.wdl == Wdl::Win ? p.plies : p.wdl == Wdl::Loss ? -p.plies : 0;
  return true;
}

bool egtb_stats(const std::string& material, EgtbStats& out) {
  const Table* tb = table_for(material, nullptr);
  if (tb) out = tb->stats;
  return tb != nullptr;
}

std::vector<EgtbStats> egtb_generated() {
  std::vector<EgtbStats> result;
  for (int slot = 0; slot < SLOTS; ++slot)
    if (all_tables()[slot].ready.load(std::memory_order_acquire))
      result.push_back(all_tables()[slot].stats);
  return result;
}

int egtb_set_path(const std::string& dir) {
  {
    std::lock_guard<std::mutex> lock(dir_mutex());
    table_dir() = dir;
  }
  int mapped = 0;
  for (int slot = 0; slot < SLOTS; ++slot) {
    Table& tb = all_tables()[slot];
    if (tb.k != MAX_K || (!tb.ready.load(std::memory_order_acquire) && !file_present(tb, dir))) continue;
    if (get_table(slot).stats.from_file) ++mapped;
  }
  return mapped;
}

int egtb_files_present(const std::string& dir) {
  int n = 0;
  for (int slot = 0; slot < SLOTS; ++slot)
    if (all_tables()[slot].k == MAX_K && file_present(all_tables()[slot], dir)) ++n;
  return n;
}

void egtb_set_build_in_search(bool allowed) { build_three_in_search.store(allowed); }

bool egtb_check_file(const std::string& material, const std::string& dir, std::string* error) {
  const Table* built = table_for(material, error);
  if (!built) return false;
  const Table& tb = *built;
  Table file;
  set_layout(file, tb.k, tb.type);
  const std::string path = file_path(dir, file);
  if (!load_table(file, path)) {
    if (error) *error = path + ": missing, or not a table of this material";
    return false;
  }
  const bool same = std::memcmp(file.data, tb.data, tb.half) == 0;
  ::munmap(const_cast<uint8_t*>(file.data - sizeof(FileHeader)), sizeof(FileHeader) + file.half);
  if (!same && error) *error = path + ": differs from the table built here";
  return same;
}

bool egtb_save(const std::string& material, const std::string& dir, std::string* error) {
  const Table* built = table_for(material, error);
  if (!built) return false;
  const Table& tb = *built;
  const std::string path = file_path(dir, tb);
  const std::string tmp = path + ".tmp";
  FileHeader h{};
  std::memcpy(h.magic, FILE_MAGIC, 4);
  h.version = FILE_VERSION;
  const std::string name = table_name(tb);
  std::memcpy(h.name, name.data(), std::min(name.size(), sizeof h.name));
  h.half = tb.half;
  h.wins = tb.stats.wins;
  h.legal = tb.stats.legal;
  h.max_plies = tb.stats.max_plies;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(tb.data), std::streamsize(tb.half));
    if (!out.flush()) {
      if (error) *error = "cannot write " + tmp;
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    if (error) *error = "cannot rename " + tmp + " to " + path;
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace makruk::engine
