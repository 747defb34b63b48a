#include "server/tournaments/tournament.h"

#include <algorithm>
#include <cstdio>

namespace makruk::server::tournaments {

bool Tournament::dropped(int player) const {
  return player >= 1 && player <= int(dropped_.size()) && dropped_[size_t(player - 1)];
}

std::vector<int> Tournament::present() const {
  std::vector<int> out;
  for (int p = 1; p <= int(names_.size()); ++p)
    if (!dropped(p)) out.push_back(p);
  return out;
}

Refusal Tournament::join(const std::string& name, int& number) {
  if (status_ == Status::finished) return Refusal::finished;
  const bool round_robin = settings_.format == Format::round_robin;
  if (round_robin && status_ != Status::open) return Refusal::not_open;
  if (int(names_.size()) >= (round_robin ? kMaxRoundRobin : kMaxPlayers)) return Refusal::full;
  names_.push_back(name);
  dropped_.push_back(false);
  number = int(names_.size());
  if (settings_.format == Format::arena && status_ != Status::open) waiting_.push_back(number);
  return Refusal::none;
}

Refusal Tournament::drop(int player) {
  if (player < 1 || player > int(names_.size())) return Refusal::unknown_player;
  if (status_ == Status::finished) return Refusal::finished;
  dropped_[size_t(player - 1)] = true;
  std::erase(waiting_, player);
  return Refusal::none;
}

Refusal Tournament::come_back(int player) {
  if (player < 1 || player > int(names_.size())) return Refusal::unknown_player;
  if (status_ == Status::finished) return Refusal::finished;
  dropped_[size_t(player - 1)] = false;
  if (settings_.format == Format::arena && status_ != Status::open &&
      std::find(waiting_.begin(), waiting_.end(), player) == waiting_.end()) {
    const bool playing = std::any_of(games_.begin(), games_.end(), [&](const Pairing& g) {
      return g.outcome == Outcome::pending && (g.white == player || g.black == player);
    });
    if (!playing) waiting_.push_back(player);
  }
  return Refusal::none;
}

Refusal Tournament::start(size_t& first_new) {
  if (status_ == Status::finished) return Refusal::finished;
  if (status_ != Status::open) return Refusal::not_open;
  if (present().size() < 2) return Refusal::too_few;
  status_ = Status::running;
  first_new = games_.size();
  switch (settings_.format) {
    case Format::round_robin:
      schedule_ = round_robin(int(names_.size()));
      next_round();
      break;
    case Format::swiss:
      next_round();
      break;
    case Format::arena:
      waiting_ = present();
      pair_waiting(first_new);
      break;
  }
  return Refusal::none;
}

bool Tournament::round_done() const {
  return std::none_of(games_.begin(), games_.end(),
                      [&](const Pairing& g) { return g.round == round_ && g.outcome == Outcome::pending; });
}

void Tournament::add_round(int round, const std::vector<Board>& boards) {
  for (size_t i = 0; i < boards.size(); ++i)
    games_.push_back(Pairing{round, int(i) + 1, boards[i].white, boards[i].black, Outcome::pending});
}

void Tournament::next_round() {
  for (;;) {
    if (settings_.format == Format::swiss) {
      const std::vector<int> here = present();
      if (round_ >= settings_.rounds || here.size() < 2) {
        status_ = Status::finished;
        return;
      }
      const RoundPairing r = pair_swiss(here, history(), settings_.first);
      ++round_;
      add_round(round_, r.boards);
      if (r.bye) byes_.push_back({round_, r.bye});
      return;
    }
    // A round robin: the schedule's next round. A game with a player who
    // dropped out is not played: the other has a bye (a point).
    if (round_ >= int(schedule_.size())) {
      status_ = Status::finished;
      return;
    }
    const RoundPairing& r = schedule_[size_t(round_)];
    ++round_;
    std::vector<Board> boards;
    for (const Board& b : r.boards) {
      if (dropped(b.white) && dropped(b.black)) continue;
      if (dropped(b.white) || dropped(b.black)) byes_.push_back({round_, dropped(b.white) ? b.black : b.white});
      else boards.push_back(b);
    }
    if (r.bye && !dropped(r.bye)) byes_.push_back({round_, r.bye});
    add_round(round_, boards);
    if (!boards.empty()) return;  // else a round of byes only: on to the next
  }
}

Refusal Tournament::game_ended(int round, int board, Outcome outcome, size_t& first_new) {
  first_new = games_.size();
  auto g = std::find_if(games_.begin(), games_.end(), [&](const Pairing& p) {
    return p.round == round && p.board == board && p.outcome == Outcome::pending;
  });
  if (g == games_.end() || outcome == Outcome::pending) return Refusal::unknown_game;
  g->outcome = outcome;
  if (settings_.format == Format::arena) {
    if (status_ != Status::finished)
      for (int p : {g->white, g->black})
        if (!dropped(p)) waiting_.push_back(p);
    return Refusal::none;
  }
  if (status_ == Status::running && round == round_ && round_done()) next_round();
  return Refusal::none;
}

Refusal Tournament::pause() {
  if (status_ != Status::running) return Refusal::not_running;
  status_ = Status::paused;
  return Refusal::none;
}

Refusal Tournament::resume(size_t& first_new) {
  first_new = games_.size();
  if (status_ != Status::paused) return Refusal::not_running;
  status_ = Status::running;
  if (settings_.format != Format::arena && round_done()) next_round();
  return Refusal::none;
}

Refusal Tournament::pair_waiting(size_t& first_new) {
  first_new = games_.size();
  if (settings_.format != Format::arena || status_ != Status::running) return Refusal::not_running;
  if (waiting_.size() < 2) return Refusal::none;
  const std::vector<Board> boards = pair_arena(waiting_, history());
  ++round_;
  add_round(round_, boards);
  for (const Board& b : boards) {
    std::erase(waiting_, b.white);
    std::erase(waiting_, b.black);
  }
  return Refusal::none;
}

Refusal Tournament::end() {
  if (status_ == Status::finished) return Refusal::finished;
  status_ = Status::finished;
  waiting_.clear();
  return Refusal::none;
}

History Tournament::history() const {
  History h;
  for (const Pairing& g : games_) h.games.push_back(Game{g.round, g.white, g.black, g.outcome});
  h.byes = byes_;
  return h;
}

std::vector<Standing> Tournament::standings() const {
  std::vector<int> everyone(names_.size());
  for (size_t i = 0; i < everyone.size(); ++i) everyone[i] = int(i) + 1;
  return tournaments::standings(everyone, history(), settings_.format);
}

namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break; a name
// that a spreadsheet would read as a formula gets a leading apostrophe.
std::string csv_field(const std::string& s) {
  std::string v = s;
  if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@')) v.insert(v.begin(), '\'');
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Points as a decimal number ("3.5", "2.25"), from `units` per point.
std::string decimal(int units, int per_point) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", double(units) / per_point);
  return buf;
}

}  // namespace

std::string Tournament::standings_csv() const {
  std::string out = "place,number,name,points,buchholz,sonneborn_berger,wins,games\r\n";
  for (const Standing& s : standings()) {
    out += std::to_string(s.place) + "," + std::to_string(s.player) + "," + csv_field(names_[size_t(s.player - 1)]) + "," +
           decimal(s.points, 2) + "," + decimal(s.buchholz, 2) + "," + decimal(s.sonneborn_berger, 4) + "," +
           std::to_string(s.wins) + "," + std::to_string(s.games) + "\r\n";
  }
  return out;
}

}  // namespace makruk::server::tournaments
