#include "game.h"

#include <algorithm>

#include "movegen.h"
#include "notation.h"

namespace makruk {

std::string_view result_string(Result r) {
  switch (r) {
    case Result::WhiteWins: return "1-0";
    case Result::BlackWins: return "0-1";
    case Result::Draw: return "1/2-1/2";
    default: return "*";
  }
}

std::string_view reason_string(Reason r) {
  switch (r) {
    case Reason::Checkmate: return "checkmate";
    case Reason::Resignation: return "resignation";
    case Reason::Stalemate: return "stalemate";
    case Reason::BareKings: return "bare-kings";
    case Reason::Repetition: return "repetition";
    case Reason::InsufficientMaterial: return "insufficient-material";
    case Reason::CountExpired: return "count-expired";
    case Reason::CountMate: return "count-mate";
    case Reason::Expired: return "expired";
    case Reason::Agreement: return "agreement";
    default: return "";
  }
}

std::string_view count_kind_string(CountKind k) {
  return k == CountKind::Board ? "board" : k == CountKind::Piece ? "piece" : "";
}

bool can_checkmate(const Position& pos, Color side) {
  if (pos.pieces(side, ROOK) | pos.pieces(side, KHON)) return true;
  int othersOnBoard = popcount(pos.pieces() & ~pos.pieces(KING));
  if ((pos.pieces(side, PAWN) | pos.pieces(side, KNIGHT)) && othersOnBoard >= 2) return true;
  Bitboard mets = pos.met_movers(side);
  return (mets & DARK_SQUARES) && (mets & ~DARK_SQUARES);
}

namespace {

Result win_for(Color c) { return c == WHITE ? Result::WhiteWins : Result::BlackWins; }

bool parse_side(std::string_view s, Color& c) {
  if (s == "w") c = WHITE;
  else if (s == "b") c = BLACK;
  else return false;
  return true;
}

const char* side_name(Color c) { return c == WHITE ? "White" : "Black"; }

// Reports why an action is refused; always false.
bool refuse(std::string* error, std::string msg) {
  if (error) *error = std::move(msg);
  return false;
}

}  // namespace

Game::Game(const Position& pos, std::string startFen) : pos_(pos), start_fen_(std::move(startFen)) {
  keys_.push_back(pos_.key());
}

std::optional<Game> Game::create(Variant variant, Counting counting, std::string_view fen,
                                 std::string* error) {
  Position pos;
  if (fen.empty()) fen = Position::start_fen(variant);
  if (!pos.set(fen, variant, counting, error)) return std::nullopt;
  Game g(pos, pos.fen());
  g.evaluate_end(~pos.side_to_move());
  return g;
}

int Game::repetitions() const {
  return int(std::count(keys_.begin(), keys_.end(), keys_.back()));
}

MoveList Game::legal_moves() const {
  MoveList list;
  if (!over()) generate_legal(pos_, list);
  return list;
}

bool Game::refuse_if_over(std::string* error) const {
  if (!over()) return false;
  if (error) *error = "the game is over (" + std::string(reason_string(reason_)) + ")";
  return true;
}

void Game::evaluate_end(Color mover) {
  const Count& count = pos_.count();
  if (count_legal(pos_) == 0) {
    if (!pos_.in_check()) return finish(Result::Draw, Reason::Stalemate);
    // D9: a declared count still running when its own side mates gives a draw.
    if (counting() == Counting::Declaration && count.running() && count.side == mover)
      return finish(Result::Draw, Reason::CountMate);
    return finish(win_for(mover), Reason::Checkmate);
  }
  if (popcount(pos_.pieces()) == 2) return finish(Result::Draw, Reason::BareKings);
  if (variant() == Variant::Ouk && !can_checkmate(pos_, WHITE) && !can_checkmate(pos_, BLACK))
    return finish(Result::Draw, Reason::InsufficientMaterial);
  if (variant() == Variant::Makruk && repetitions() >= 3)
    return finish(Result::Draw, Reason::Repetition);
  if (count.running() && count.expired) return finish(Result::Draw, Reason::CountExpired);
}

bool Game::play(Move m, std::string* error) {
  if (refuse_if_over(error)) return false;
  if (!is_legal(pos_, m)) return refuse(error, "illegal move '" + move_to_string(m) + "'");
  Color mover = pos_.side_to_move();
  pos_.do_move(m);
  keys_.push_back(pos_.key());
  record_.push_back(move_to_string(m));
  if (draw_offer_ == ~mover) draw_offer_.reset();  // moving declines the other side's offer
  evaluate_end(mover);
  return true;
}

bool Game::start_count(Color side, std::string* error) {
  if (refuse_if_over(error)) return false;
  if (counting() == Counting::Automatic)
    return refuse(error, "counts start by themselves in automatic counting mode");
  if (pos_.count().running())
    return refuse(error, std::string(side_name(pos_.count().side)) + " is already counting");
  Count c = qualifying_count(pos_, side);
  if (!c.running()) return refuse(error, std::string(side_name(side)) + " does not qualify for a count");
  pos_.set_count(c);
  record_.push_back(std::string("count:") + (side == WHITE ? "w" : "b"));
  if (c.expired) finish(Result::Draw, Reason::CountExpired);  // started at or beyond its limit
  return true;
}

bool Game::stop_count(Color side, std::string* error) {
  if (refuse_if_over(error)) return false;
  if (counting() == Counting::Automatic)
    return refuse(error, "a count cannot be stopped in automatic counting mode");
  if (!pos_.count().running() || pos_.count().side != side)
    return refuse(error, std::string(side_name(side)) + " is not counting");
  pos_.set_count(Count{});
  record_.push_back(std::string("stop:") + (side == WHITE ? "w" : "b"));
  return true;
}

bool Game::claim_draw(Color side, std::string* error) {
  if (refuse_if_over(error)) return false;
  if (variant() != Variant::Ouk)
    return refuse(error, "repetition draws are not claimed in Makruk (the third repetition draws by itself)");
  if (repetitions() < 3)
    return refuse(error, "no threefold repetition to claim (this position has occurred " +
                             std::to_string(repetitions()) + " time" + (repetitions() == 1 ? "" : "s") + ")");
  record_.push_back(std::string("claim:") + (side == WHITE ? "w" : "b"));
  finish(Result::Draw, Reason::Repetition);
  return true;
}

bool Game::resign(Color side, std::string* error) {
  if (refuse_if_over(error)) return false;
  record_.push_back(std::string("resign:") + (side == WHITE ? "w" : "b"));
  finish(win_for(~side), Reason::Resignation);
  return true;
}

bool Game::offer_draw(Color side, std::string* error) {
  if (refuse_if_over(error)) return false;
  if (draw_offer_ == side) return refuse(error, std::string(side_name(side)) + " has already offered a draw");
  if (draw_offer_) return refuse(error, std::string(side_name(~side)) + " offers a draw: accept or decline it");
  if (offered_at_[side] == plies())
    return refuse(error, std::string(side_name(side)) + " may offer a draw again after its next move");
  record_.push_back(std::string("offer:") + (side == WHITE ? "w" : "b"));
  draw_offer_ = side;
  offered_at_[side] = plies();
  return true;
}

bool Game::accept_draw(Color side, std::string* error) {
  if (refuse_if_over(error)) return false;
  if (draw_offer_ != ~side) return refuse(error, "no draw offer to accept");
  record_.push_back(std::string("accept:") + (side == WHITE ? "w" : "b"));
  finish(Result::Draw, Reason::Agreement);
  return true;
}

bool Game::decline_draw(Color side, std::string* error) {
  if (refuse_if_over(error)) return false;
  if (draw_offer_ != ~side) return refuse(error, "no draw offer to decline");
  record_.push_back(std::string("decline:") + (side == WHITE ? "w" : "b"));
  draw_offer_.reset();
  return true;
}

bool Game::expire(std::string* error) {
  if (refuse_if_over(error)) return false;
  record_.push_back("expire");
  finish(Result::Draw, Reason::Expired);
  return true;
}

bool is_move_action(std::string_view action) {
  return action.find(':') == std::string_view::npos && action != "expire";
}

bool Game::apply(std::string_view action, std::string* error) {
  if (action == "expire") return expire(error);
  if (size_t colon = action.find(':'); colon != std::string_view::npos) {
    std::string_view verb = action.substr(0, colon);
    Color side;
    if (!parse_side(action.substr(colon + 1), side))
      return refuse(error, "malformed action '" + std::string(action) + "' (side must be w or b)");
    if (verb == "count") return start_count(side, error);
    if (verb == "stop") return stop_count(side, error);
    if (verb == "claim") return claim_draw(side, error);
    if (verb == "resign") return resign(side, error);
    if (verb == "offer") return offer_draw(side, error);
    if (verb == "accept") return accept_draw(side, error);
    if (verb == "decline") return decline_draw(side, error);
    return refuse(error, "unknown action '" + std::string(action) + "'");
  }
  if (refuse_if_over(error)) return false;
  Move m = parse_move(pos_, action, error);
  return !m.is_none() && play(m, error);
}

}  // namespace makruk
