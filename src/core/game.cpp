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
    case Reason::Aborted: return "aborted";
    case Reason::Time: return "time";
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

// A message about a side (messages.h: its `side`).
Message about(Msg m, Color side) { return {m, {{"side", side_arg(side == WHITE)}}}; }

// Reports why an action is refused; always false.
bool refuse(const Why& error, Message msg) { return error(std::move(msg)); }

}  // namespace

Game::Game(const Position& pos, std::string startFen) : pos_(pos), start_fen_(std::move(startFen)) {
  keys_.push_back(pos_.key());
}

std::optional<Game> Game::create(Variant variant, Counting counting, std::string_view fen,
                                 Why error) {
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

bool Game::refuse_if_over(Why error) const {
  if (!over()) return false;
  error({Msg::GameOver, {{"ending", reason_string(reason_)}}});
  return true;
}

bool Game::play_on() {
  if (!over() || ended_ || count_legal(pos_) == 0) return false;
  ended_ = Ended{plies(), result_, reason_};
  result_ = Result::Ongoing;
  reason_ = Reason::None;
  return true;
}

void Game::evaluate_end(Color mover) {
  const Count& count = pos_.count();
  if (count_legal(pos_) == 0) {
    if (!pos_.in_check()) return finish(Result::Draw, Reason::Stalemate);
    // D9: a declared count still running when its own side mates gives a draw.
    if (counting() == Counting::Declaration && count.running() && count.side == mover && !ended_)
      return finish(Result::Draw, Reason::CountMate);
    return finish(win_for(mover), Reason::Checkmate);
  }
  if (ended_) return;  // played on past our rules' end: only a mate or stalemate ends it
  if (popcount(pos_.pieces()) == 2) return finish(Result::Draw, Reason::BareKings);
  if (variant() == Variant::Ouk && !can_checkmate(pos_, WHITE) && !can_checkmate(pos_, BLACK))
    return finish(Result::Draw, Reason::InsufficientMaterial);
  if (variant() == Variant::Makruk && repetitions() >= 3)
    return finish(Result::Draw, Reason::Repetition);
  if (count.running() && count.expired) return finish(Result::Draw, Reason::CountExpired);
}

bool Game::play(Move m, Why error) {
  if (refuse_if_over(error)) return false;
  if (!is_legal(pos_, m)) return refuse(error, {Msg::MoveIllegal, {{"move", move_to_string(m)}}});
  Color mover = pos_.side_to_move();
  pos_.do_move(m);
  keys_.push_back(pos_.key());
  record_.push_back(move_to_string(m));
  if (draw_declined_ == ~mover) draw_declined_.reset();  // the side that offered moved on
  if (draw_offer_ == ~mover) {  // moving declines the other side's offer
    draw_offer_.reset();
    draw_declined_ = mover;
  }
  evaluate_end(mover);
  return true;
}

bool Game::start_count(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  if (counting() == Counting::Automatic)
    return refuse(error, Msg::CountAutomatic);
  if (pos_.count().running())
    return refuse(error, about(Msg::CountAlready, pos_.count().side));
  Count c = qualifying_count(pos_, side);
  if (!c.running()) return refuse(error, about(Msg::CountNotQualified, side));
  pos_.set_count(c);
  record_.push_back(std::string("count:") + (side == WHITE ? "w" : "b"));
  if (c.expired) finish(Result::Draw, Reason::CountExpired);  // started at or beyond its limit
  return true;
}

bool Game::stop_count(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  if (counting() == Counting::Automatic)
    return refuse(error, Msg::CountStopAutomatic);
  if (!pos_.count().running() || pos_.count().side != side)
    return refuse(error, about(Msg::CountNotCounting, side));
  pos_.set_count(Count{});
  record_.push_back(std::string("stop:") + (side == WHITE ? "w" : "b"));
  return true;
}

bool Game::claim_draw(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  if (variant() != Variant::Ouk)
    return refuse(error, Msg::ClaimMakruk);
  if (repetitions() < 3)
    return refuse(error, {Msg::ClaimNone, {{"n", repetitions()}}});
  record_.push_back(std::string("claim:") + (side == WHITE ? "w" : "b"));
  finish(Result::Draw, Reason::Repetition);
  return true;
}

bool Game::resign(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  record_.push_back(std::string("resign:") + (side == WHITE ? "w" : "b"));
  finish(win_for(~side), Reason::Resignation);
  return true;
}

bool Game::offer_draw(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  if (draw_offer_ == side) return refuse(error, about(Msg::DrawAlreadyOffered, side));
  if (draw_offer_) return refuse(error, about(Msg::DrawOffered, ~side));
  if (offered_at_[side] == plies())
    return refuse(error, about(Msg::DrawAgainLater, side));
  record_.push_back(std::string("offer:") + (side == WHITE ? "w" : "b"));
  draw_offer_ = side;
  draw_declined_.reset();
  offered_at_[side] = plies();
  return true;
}

bool Game::accept_draw(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  if (draw_offer_ != ~side) return refuse(error, Msg::DrawNoneToAccept);
  record_.push_back(std::string("accept:") + (side == WHITE ? "w" : "b"));
  finish(Result::Draw, Reason::Agreement);
  return true;
}

bool Game::decline_draw(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  if (draw_offer_ != ~side) return refuse(error, Msg::DrawNoneToDecline);
  record_.push_back(std::string("decline:") + (side == WHITE ? "w" : "b"));
  draw_offer_.reset();
  draw_declined_ = side;
  return true;
}

bool Game::expire(Why error) {
  if (refuse_if_over(error)) return false;
  record_.push_back("expire");
  finish(Result::Draw, Reason::Expired);
  return true;
}

bool Game::abort(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  if (pos_.side_to_move() != side || plies() >= 2) return refuse(error, about(Msg::AbortLate, side));
  record_.push_back(std::string("abort:") + (side == WHITE ? "w" : "b"));
  finish(Result::Draw, Reason::Aborted);
  return true;
}

bool Game::time_up(Color side, Why error) {
  if (refuse_if_over(error)) return false;
  if (pos_.side_to_move() != side) return refuse(error, about(Msg::TimeNotRunning, side));
  record_.push_back(std::string("time:") + (side == WHITE ? "w" : "b"));
  if (can_checkmate(pos_, ~side)) finish(win_for(~side), Reason::Time);
  else finish(Result::Draw, Reason::Time);
  return true;
}

bool is_move_action(std::string_view action) {
  return action.find(':') == std::string_view::npos && action != "expire";
}

bool Game::apply(std::string_view action, Why error) {
  if (action == "expire") return expire(error);
  if (size_t colon = action.find(':'); colon != std::string_view::npos) {
    std::string_view verb = action.substr(0, colon);
    Color side;
    if (!parse_side(action.substr(colon + 1), side))
      return refuse(error, {Msg::ActionMalformed, {{"action", action}}});
    if (verb == "count") return start_count(side, error);
    if (verb == "stop") return stop_count(side, error);
    if (verb == "claim") return claim_draw(side, error);
    if (verb == "resign") return resign(side, error);
    if (verb == "offer") return offer_draw(side, error);
    if (verb == "accept") return accept_draw(side, error);
    if (verb == "decline") return decline_draw(side, error);
    // The rules' own spelling (docs/rules.md §7): an offer, or the acceptance of the other side's.
    if (verb == "draw") return draw_offer_ == ~side ? accept_draw(side, error) : offer_draw(side, error);
    if (verb == "abort") return abort(side, error);
    if (verb == "time") return time_up(side, error);
    return refuse(error, {Msg::ActionUnknown, {{"action", action}}});
  }
  if (refuse_if_over(error)) return false;
  Move m = parse_move(pos_, action, error);
  return !m.is_none() && play(m, error);
}

}  // namespace makruk
