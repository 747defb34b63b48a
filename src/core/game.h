// A game: a starting position, the record of actions (moves and the §7
// actions count/stop/claim/resign) and the state they lead to.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "position.h"

namespace makruk {

enum class Result : uint8_t { Ongoing, WhiteWins, BlackWins, Draw };
enum class Reason : uint8_t {
  None,
  Checkmate,
  Resignation,
  Stalemate,
  BareKings,
  Repetition,
  InsufficientMaterial,
  CountExpired,
  CountMate,
  Expired,  // a turn-based table went 45 days without a move: no winner or loser
  Agreement,  // a draw offered by one player and accepted by the other
  Aborted,    // a side made no first move in time (a paired live game): no winner or loser
  Time,       // a side's clock ran out (a table with a clock): a loss, or a draw when the other cannot mate
};

std::string_view result_string(Result r);   // "1-0", "0-1", "1/2-1/2", "*"
std::string_view reason_string(Reason r);   // "checkmate", …; "" for None
std::string_view count_kind_string(CountKind k);  // "board", "piece"

// D7 (Ouk Chatrang): whether `side` could ever give checkmate with its material.
bool can_checkmate(const Position& pos, Color side);

// Whether a record entry is a move (rather than count/stop/claim/resign/offer/
// accept/decline/expire).
bool is_move_action(std::string_view action);

class Game {
 public:
  // Starts from `fen` (the variant's start position when empty). Returns
  // nothing and says why in `error` when the FEN is malformed. Refusals say
  // why in `error` too (messages.h).
  static std::optional<Game> create(Variant variant, Counting counting, std::string_view fen,
                                    Why error);

  // Applies one action: a coordinate move ("e3e4", "d5d6m"), or "count:w",
  // "stop:b", "claim:w", "resign:b", "offer:w" (a draw), "accept:b",
  // "decline:b", "abort:w" (White made no first move in time), "time:b"
  // (Black's clock ran out, Black to move), or "expire"
  // (the table's time ran out). A refused action
  // changes nothing.
  bool apply(std::string_view action, Why error);

  bool play(Move m, Why error);
  bool start_count(Color side, Why error);
  bool stop_count(Color side, Why error);
  bool claim_draw(Color side, Why error);
  bool resign(Color side, Why error);
  // A draw offer stands until the other side accepts it, declines it or
  // moves. A side offers at most once per move of its own.
  bool offer_draw(Color side, Why error);
  bool accept_draw(Color side, Why error);
  bool decline_draw(Color side, Why error);
  // The side whose draw offer stands, if any.
  std::optional<Color> draw_offer() const { return draw_offer_; }
  // The side that declined the last offer (by declining it or by moving),
  // until the side that offered moves or offers again.
  std::optional<Color> draw_declined() const { return draw_declined_; }
  // Whether `side` may offer a draw now (once per move of its own).
  bool may_offer_draw(Color side) const { return !over() && !draw_offer_ && offered_at_[side] != plies(); }
  // Ends the game with no winner or loser (recorded as a draw, reason Expired).
  bool expire(Why error);
  // Calls the game off because `side`, to move, has made no move of its own
  // yet (a paired player who never started): no winner or loser (recorded as
  // a draw, reason Aborted; its PGN result is "*").
  bool abort(Color side, Why error);
  // `side`, to move, ran out of time: the other side wins, or the game is
  // drawn when the other side could never checkmate with what it has
  // (can_checkmate; docs/rules-notes.md).
  bool time_up(Color side, Why error);

  const Position& position() const { return pos_; }
  Variant variant() const { return pos_.variant(); }
  Counting counting() const { return pos_.counting(); }
  bool over() const { return result_ != Result::Ongoing; }
  Result result() const { return result_; }
  Reason reason() const { return reason_; }
  // How often the current position (placement, side to move, rights) has occurred.
  int repetitions() const;
  // The legal moves, or none once the game is over.
  MoveList legal_moves() const;
  // The actions applied so far, in their canonical spelling.
  const std::vector<std::string>& record() const { return record_; }
  std::string start_fen() const { return start_fen_; }
  // Plies played (moves only, not the other actions).
  int plies() const { return int(keys_.size()) - 1; }

  // Where our rules ended a game that went on (play_on): after which ply, how and why.
  struct Ended {
    int ply = 0;
    Result result = Result::Ongoing;
    Reason reason = Reason::None;
  };
  // For the analysis of a record that goes on past the end our rules give it
  // (a count run out or claimed late, bare kings, a repetition, material that
  // cannot mate, an agreed draw or a resignation): the game goes on from there.
  // The end is kept (ended()); from then on only a checkmate or stalemate ends
  // the game (a count runs on past its limit). A game plays on once: false,
  // changing nothing, when it is not over, has played on before, or has no
  // move left to play.
  bool play_on();
  const std::optional<Ended>& ended() const { return ended_; }

 private:
  explicit Game(const Position& pos, std::string startFen);
  bool refuse_if_over(Why error) const;
  void evaluate_end(Color mover);
  void finish(Result r, Reason why) {
    result_ = r;
    reason_ = why;
    draw_offer_.reset();  // an ended game has no offer standing
    draw_declined_.reset();
  }

  Position pos_;
  std::string start_fen_;
  std::vector<uint64_t> keys_;  // repetition keys, one per position reached
  std::vector<std::string> record_;
  Result result_ = Result::Ongoing;
  Reason reason_ = Reason::None;
  std::optional<Color> draw_offer_;
  std::optional<Color> draw_declined_;
  int offered_at_[2] = {-1, -1};  // the ply of each side's last offer
  std::optional<Ended> ended_;  // where the game ended before it went on (play_on)
};

}  // namespace makruk
