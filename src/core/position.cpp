#include "position.h"

#include <cctype>
#include <cstring>
#include <mutex>

#include "movegen.h"

namespace makruk {

namespace zobrist {
uint64_t psq[PIECE_NB][64];
uint64_t side;
uint64_t rights[16];
}  // namespace zobrist

namespace {

constexpr std::string_view PIECE_LETTERS = " PMSNRKM";  // index = PieceType

void init_zobrist() {
  uint64_t s = 0x9E3779B97F4A7C15ULL;
  auto next = [&s] {  // splitmix64
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  for (auto& piece : zobrist::psq)
    for (auto& k : piece) k = next();
  zobrist::side = next();
  zobrist::rights[0] = 0;
  uint64_t bit[4];
  for (auto& b : bit) b = next();
  for (int r = 1; r < 16; ++r) {
    zobrist::rights[r] = 0;
    for (int i = 0; i < 4; ++i)
      if (r & (1 << i)) zobrist::rights[r] ^= bit[i];
  }
}

// Rights that vanish when a move leaves from or lands on the square.
uint8_t rights_touching(Square s) {
  switch (s) {
    case WHITE_KING_START: return WHITE_KING_RIGHT;
    case WHITE_NEANG_START: return WHITE_NEANG_RIGHT;
    case BLACK_NEANG_START: return BLACK_NEANG_RIGHT;
    case BLACK_KING_START: return BLACK_KING_RIGHT;
    default: return NO_RIGHTS;
  }
}

bool parse_number(std::string_view s, int& out) {
  if (s.empty() || s.size() > 6) return false;
  int v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

}  // namespace

Position::Position(Empty) {
  init_bitboards();
  static std::once_flag once;
  std::call_once(once, init_zobrist);
  std::memset(board_, 0, sizeof board_);
  std::memset(by_type_, 0, sizeof by_type_);
  std::memset(by_color_, 0, sizeof by_color_);
  states_.reserve(256);
}

Position::Position() : Position(Empty{}) {
  set(MAKRUK_START, Variant::Makruk, Counting::Automatic, nullptr);
}

void Position::put_piece(Piece p, Square s) {
  board_[s] = p;
  by_type_[type_of(p)] |= square_bb(s);
  by_color_[color_of(p)] |= square_bb(s);
}

void Position::remove_piece(Square s) {
  Piece p = board_[s];
  by_type_[type_of(p)] ^= square_bb(s);
  by_color_[color_of(p)] ^= square_bb(s);
  board_[s] = NO_PIECE;
}

void Position::move_piece(Square from, Square to) {
  Piece p = board_[from];
  Bitboard fromTo = square_bb(from) | square_bb(to);
  by_type_[type_of(p)] ^= fromTo;
  by_color_[color_of(p)] ^= fromTo;
  board_[from] = NO_PIECE;
  board_[to] = p;
}

bool Position::set(std::string_view fen, Variant variant, Counting counting, Why error) {
  auto fail = [&error](Message m) { return error(std::move(m)); };
  std::vector<std::string_view> fields;
  for (size_t i = 0; i < fen.size();) {
    while (i < fen.size() && fen[i] == ' ') ++i;
    size_t j = i;
    while (j < fen.size() && fen[j] != ' ') ++j;
    if (j > i) fields.push_back(fen.substr(i, j - i));
    i = j;
  }
  if (fields.size() < 2) return fail(Msg::FenFields);
  if (fields.size() > 6) return fail(Msg::FenTooManyFields);

  Position p{Empty{}};  // built aside so that a failure changes nothing
  p.variant_ = variant;
  p.counting_ = counting;
  p.states_.clear();
  std::memset(p.board_, 0, sizeof p.board_);
  std::memset(p.by_type_, 0, sizeof p.by_type_);
  std::memset(p.by_color_, 0, sizeof p.by_color_);

  // Field 1: piece placement, rank 8 first.
  int rank = 7, file = 0;
  std::string_view board = fields[0];
  for (size_t i = 0; i < board.size(); ++i) {
    char c = board[i];
    if (c == '/') {
      if (file != 8) return fail({Msg::FenRankShort, {{"rank", rank + 1}}});
      if (rank == 0) return fail(Msg::FenTooManyRanks);
      --rank;
      file = 0;
    } else if (c >= '1' && c <= '8') {
      file += c - '0';
      if (file > 8) return fail({Msg::FenRankLong, {{"rank", rank + 1}}});
    } else {
      size_t idx = PIECE_LETTERS.find(char(std::toupper(static_cast<unsigned char>(c))));
      if (idx == std::string_view::npos || idx == 0 || idx == PROMOTED)
        return fail({Msg::FenLetter, {{"letter", std::string(1, c)}}});
      if (file >= 8) return fail({Msg::FenRankLong, {{"rank", rank + 1}}});
      PieceType pt = PieceType(idx);
      if (i + 1 < board.size() && board[i + 1] == '~') {
        if (pt != MET) return fail({Msg::FenPromoted, {{"letter", std::string(1, c)}}});
        pt = PROMOTED;
        ++i;
      }
      Color col = std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK;
      Square s = make_square(file, rank);
      if (pt == PAWN && relative_rank(col, s) >= 5)
        return fail({Msg::FenPawnRank, {{"square", std::string(1, char('a' + file)) + std::to_string(rank + 1)}}});
      p.put_piece(make_piece(col, pt), s);
      ++file;
    }
  }
  if (rank != 0 || file != 8) return fail(Msg::FenRanks);
  for (Color c : {WHITE, BLACK})
    if (popcount(p.pieces(c, KING)) != 1)
      return fail({Msg::FenKings, {{"side", side_arg(c == WHITE)}}});
  // No more material than a game can have (no pawn promotes to anything but a
  // met-mover); this also keeps every legal move list within MAX_MOVES.
  for (Color c : {WHITE, BLACK}) {
    const std::string_view side = side_arg(c == WHITE);
    for (PieceType pt : {KHON, KNIGHT, ROOK})
      if (popcount(p.pieces(c, pt)) > 2)
        return fail({Msg::FenTooManyPieces,
                     {{"side", side}, {"piece", pt == KHON ? "khon" : pt == KNIGHT ? "knight" : "rook"}}});
    if (popcount(p.pieces(c, PAWN)) > 8)
      return fail({Msg::FenTooManyPawns, {{"side", side}}});
    if (popcount(p.pieces(c, PAWN) | p.met_movers(c)) > 9)
      return fail({Msg::FenTooManyMets, {{"side", side}}});
  }

  // Field 2: side to move.
  if (fields[1] == "w") p.side_ = WHITE;
  else if (fields[1] == "b") p.side_ = BLACK;
  else return fail({Msg::FenSide, {{"got", fields[1]}}});

  // Field 3: Ouk first-move rights.
  StateInfo si;
  if (fields.size() > 2 && fields[2] != "-") {
    if (variant == Variant::Makruk)
      return fail({Msg::FenRightsMakruk, {{"got", fields[2]}}});
    for (char c : fields[2]) {
      uint8_t bit;
      Square sq;
      Piece need;
      switch (c) {
        case 'D': bit = WHITE_KING_RIGHT; sq = WHITE_KING_START; need = make_piece(WHITE, KING); break;
        case 'E': bit = WHITE_NEANG_RIGHT; sq = WHITE_NEANG_START; need = make_piece(WHITE, MET); break;
        case 'd': bit = BLACK_NEANG_RIGHT; sq = BLACK_NEANG_START; need = make_piece(BLACK, MET); break;
        case 'e': bit = BLACK_KING_RIGHT; sq = BLACK_KING_START; need = make_piece(BLACK, KING); break;
        default:
          return fail({Msg::FenRightsLetter, {{"letter", std::string(1, c)}}});
      }
      if (si.rights & bit) return fail({Msg::FenRightsRepeated, {{"letter", std::string(1, c)}}});
      if (p.board_[sq] != need)
        return fail({Msg::FenRightsPiece,
                     {{"letter", std::string(1, c)}, {"piece", type_of(need) == KING ? "king" : "neang"}}});
      si.rights |= bit;
    }
  }

  // Field 4: '-' (no en passant), or Fairy-Stockfish's count numbers in fields 4 and 5.
  int moveNumber = 1;
  if (fields.size() > 3) {
    int unused;
    if (fields[3] != "-" && !parse_number(fields[3], unused))
      return fail({Msg::FenField4, {{"got", fields[3]}}});
  }
  if (fields.size() > 4) {
    int unused;
    if (!parse_number(fields[4], unused))
      return fail({Msg::FenField5, {{"got", fields[4]}}});
  }
  if (fields.size() > 5) {
    if (!parse_number(fields[5], moveNumber) || moveNumber < 1)
      return fail({Msg::FenMoveNumber, {{"got", fields[5]}}});
  }
  p.ply_ = 2 * (moveNumber - 1) + (p.side_ == BLACK);

  if (p.attackers_to(p.king_square(~p.side_), p.pieces()) & p.pieces(p.side_))
    return fail(Msg::FenCheck);

  si.key = 0;
  p.states_.push_back(si);
  p.states_.back().key = p.compute_key();
  p.states_.back().checkers = p.compute_checkers();
  p.states_.back().count = initial_count(p, counting);

  *this = std::move(p);
  return true;
}

Position Position::without_history() const {
  Position p{Empty{}};
  std::memcpy(p.board_, board_, sizeof board_);
  std::memcpy(p.by_type_, by_type_, sizeof by_type_);
  std::memcpy(p.by_color_, by_color_, sizeof by_color_);
  p.side_ = side_;
  p.variant_ = variant_;
  p.counting_ = counting_;
  p.ply_ = ply_;
  p.states_.push_back(st());
  return p;
}

std::string Position::fen() const {
  std::string s;
  for (int r = 7; r >= 0; --r) {
    int empty = 0;
    for (int f = 0; f < 8; ++f) {
      Piece pc = board_[make_square(f, r)];
      if (pc == NO_PIECE) {
        ++empty;
        continue;
      }
      if (empty) s += char('0' + empty), empty = 0;
      char letter = PIECE_LETTERS[type_of(pc)];
      s += color_of(pc) == WHITE ? letter : char(std::tolower(letter));
      if (type_of(pc) == PROMOTED) s += '~';
    }
    if (empty) s += char('0' + empty);
    if (r) s += '/';
  }
  s += side_ == WHITE ? " w " : " b ";
  uint8_t r = rights();
  if (!r) s += '-';
  if (r & WHITE_KING_RIGHT) s += 'D';
  if (r & WHITE_NEANG_RIGHT) s += 'E';
  if (r & BLACK_NEANG_RIGHT) s += 'd';
  if (r & BLACK_KING_RIGHT) s += 'e';
  s += " - 0 ";
  s += std::to_string(ply_ / 2 + 1);
  return s;
}

uint64_t Position::compute_key() const {
  uint64_t k = 0;
  for (Square s = 0; s < 64; ++s)
    if (board_[s] != NO_PIECE) k ^= zobrist::psq[board_[s]][s];
  if (side_ == BLACK) k ^= zobrist::side;
  return k ^ zobrist::rights[st().rights];
}

uint64_t Position::full_key() const {
  const Count& c = st().count;
  if (!c.running()) return key();
  // A different multiplier per field keeps distinct counts apart.
  uint64_t h = (uint64_t(c.kind) << 24) | (uint64_t(c.side) << 23) | (uint64_t(c.expired) << 22) |
               (uint64_t(c.n) << 8) | c.limit;
  h *= 0xD6E8FEB86659FD93ULL;
  return key() ^ (h ^ (h >> 32));
}

Bitboard Position::attackers_to(Square s, Bitboard occupied) const {
  return (pawn_attacks(WHITE, s) & pieces(BLACK, PAWN)) |
         (pawn_attacks(BLACK, s) & pieces(WHITE, PAWN)) |
         (knight_attacks(s) & pieces(KNIGHT)) | (king_attacks(s) & pieces(KING)) |
         (met_attacks(s) & met_movers()) |
         // a White khon attacks s from where a Black khon would step to from s
         (khon_attacks(BLACK, s) & pieces(WHITE, KHON)) |
         (khon_attacks(WHITE, s) & pieces(BLACK, KHON)) |
         (rook_attacks(s, occupied) & pieces(ROOK));
}

Bitboard Position::attacks_by(Color c, Bitboard occupied) const {
  constexpr Bitboard notA = ~file_bb(0), notH = ~file_bb(7);
  Bitboard attacks = king_attacks(king_square(c));
  Bitboard diag = met_movers(c) | pieces(c, KHON);
  attacks |= ((diag & notH) << 9) | ((diag & notA) << 7) | ((diag & notA) >> 9) | ((diag & notH) >> 7);
  Bitboard pawns = pieces(c, PAWN), khons = pieces(c, KHON);
  if (c == WHITE)
    attacks |= ((pawns & notH) << 9) | ((pawns & notA) << 7) | (khons << 8);
  else
    attacks |= ((pawns & notA) >> 9) | ((pawns & notH) >> 7) | (khons >> 8);
  for (Bitboard b = pieces(c, KNIGHT); b;) attacks |= knight_attacks(pop_lsb(b));
  for (Bitboard b = pieces(c, ROOK); b;) attacks |= rook_attacks(pop_lsb(b), occupied);
  return attacks;
}

Bitboard Position::pinned(Color c) const {
  Square ksq = king_square(c);
  Bitboard result = 0;
  for (Bitboard snipers = rook_attacks(ksq, 0) & pieces(~c, ROOK); snipers;) {
    Bitboard b = between_bb(ksq, pop_lsb(snipers)) & pieces();
    if (b && !more_than_one(b)) result |= b & pieces(c);
  }
  return result;
}

Bitboard Position::compute_checkers() const {
  return attackers_to(king_square(side_), pieces()) & pieces(~side_);
}

bool Position::is_king_jump(Move m) const {
  Color us = color_of(board_[m.from()]);
  uint8_t right = us == WHITE ? WHITE_KING_RIGHT : BLACK_KING_RIGHT;
  return (rights() & right) && type_of(board_[m.from()]) == KING &&
         (knight_attacks(m.from()) & square_bb(m.to()));
}

bool Position::is_neang_jump(Move m) const {
  Color us = color_of(board_[m.from()]);
  uint8_t right = us == WHITE ? WHITE_NEANG_RIGHT : BLACK_NEANG_RIGHT;
  return (rights() & right) && type_of(board_[m.from()]) == MET &&
         m.to() == m.from() + 2 * pawn_push(us);
}

void Position::do_move(Move m) {
  StateInfo ns;
  const StateInfo& prev = st();
  ns.count = prev.count;
  ns.rights = prev.rights;
  ns.key = prev.key ^ zobrist::side;
  ns.move = m;

  Square from = m.from(), to = m.to();
  Piece pc = board_[from];
  Color us = side_;
  Piece captured = board_[to];
  if (captured != NO_PIECE) {
    remove_piece(to);
    ns.key ^= zobrist::psq[captured][to];
  }
  ns.captured = captured;
  move_piece(from, to);
  ns.key ^= zobrist::psq[pc][from] ^ zobrist::psq[pc][to];
  if (m.is_promotion()) {
    Piece promoted = make_piece(us, PROMOTED);
    remove_piece(to);
    put_piece(promoted, to);
    ns.key ^= zobrist::psq[pc][to] ^ zobrist::psq[promoted][to];
  }
  if (ns.rights) {
    uint8_t r = ns.rights & ~(rights_touching(from) | rights_touching(to));
    // D1: an enemy rook ending its move on the king's rank or file takes the jump away.
    uint8_t theirKing = us == WHITE ? BLACK_KING_RIGHT : WHITE_KING_RIGHT;
    if ((r & theirKing) && type_of(pc) == ROOK) {
      Square ksq = us == WHITE ? BLACK_KING_START : WHITE_KING_START;
      if (file_of(to) == file_of(ksq) || rank_of(to) == rank_of(ksq)) r &= ~theirKing;
    }
    ns.key ^= zobrist::rights[ns.rights] ^ zobrist::rights[r];
    ns.rights = r;
  }
  ns.reversible = (captured != NO_PIECE || type_of(pc) == PAWN || ns.rights != prev.rights)
                      ? 0
                      : uint16_t(prev.reversible + 1);
  side_ = ~us;
  ++ply_;
  states_.push_back(ns);
  StateInfo& cur = states_.back();
  cur.checkers = compute_checkers();
  update_count_after_move(*this, cur.count, us, counting_);
}

void Position::undo_move() {
  const StateInfo& s = st();
  Move m = s.move;
  Square from = m.from(), to = m.to();
  side_ = ~side_;
  --ply_;
  if (m.is_promotion()) {
    remove_piece(to);
    put_piece(make_piece(side_, PAWN), to);
  }
  move_piece(to, from);
  if (s.captured != NO_PIECE) put_piece(s.captured, to);
  states_.pop_back();
}

void Position::do_null_move() {
  StateInfo ns = st();
  ns.key ^= zobrist::side;
  ns.move = Move();
  ns.captured = NO_PIECE;
  ns.reversible = 0;
  side_ = ~side_;
  ++ply_;
  states_.push_back(ns);
  states_.back().checkers = compute_checkers();
}

void Position::undo_null_move() {
  side_ = ~side_;
  --ply_;
  states_.pop_back();
}

bool Position::is_consistent() const {
  for (Square s = 0; s < 64; ++s) {
    Piece p = board_[s];
    if (p == NO_PIECE) {
      if (pieces() & square_bb(s)) return false;
    } else if (!(pieces(color_of(p), type_of(p)) & square_bb(s))) {
      return false;
    }
  }
  if (pieces(WHITE) & pieces(BLACK)) return false;
  if (popcount(pieces(WHITE, KING)) != 1 || popcount(pieces(BLACK, KING)) != 1) return false;
  return compute_key() == key() && compute_checkers() == checkers();
}

std::string_view variant_name(Variant v) { return v == Variant::Makruk ? "makruk" : "ouk"; }

bool parse_variant(std::string_view name, Variant& out) {
  if (name == "makruk") {
    out = Variant::Makruk;
    return true;
  }
  if (name == "ouk" || name == "cambodian" || name == "ouk-chatrang") {
    out = Variant::Ouk;
    return true;
  }
  return false;
}

}  // namespace makruk
