// Sounds made with WebAudio (no sound files): move, capture, check, game end.
export type Sound = 'move' | 'capture' | 'check' | 'end';

let ctx: AudioContext | null = null;
let muted = (() => {
  try {
    return localStorage.getItem('makruk.mute') === '1';
  } catch {
    return false;
  }
})();

export function isMuted(): boolean {
  return muted;
}

export function setMuted(m: boolean): void {
  muted = m;
  try {
    localStorage.setItem('makruk.mute', m ? '1' : '0');
  } catch {
    /* ignore */
  }
}

function audio(): AudioContext | null {
  if (ctx) return ctx;
  const AC = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = new AC();
  } catch {
    ctx = null;
  }
  return ctx;
}

/** Browsers allow audio only after a gesture: call on the first tap. */
export function unlockAudio(): void {
  const c = audio();
  if (c && c.state === 'suspended') void c.resume();
}

// A wooden "tock": a short noise burst through a band-pass filter plus a low sine thump.
function knock(c: AudioContext, at: number, freq: number, gain: number, dur: number): void {
  const len = Math.floor(c.sampleRate * dur);
  const buf = c.createBuffer(1, len, c.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < len; i++) data[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / len, 4);
  const src = c.createBufferSource();
  src.buffer = buf;
  const bp = c.createBiquadFilter();
  bp.type = 'bandpass';
  bp.frequency.value = freq;
  bp.Q.value = 4;
  const g = c.createGain();
  g.gain.value = gain;
  src.connect(bp).connect(g).connect(c.destination);
  src.start(at);

  const osc = c.createOscillator();
  osc.frequency.setValueAtTime(freq / 8, at);
  osc.frequency.exponentialRampToValueAtTime(freq / 16, at + dur);
  const og = c.createGain();
  og.gain.setValueAtTime(gain * 0.6, at);
  og.gain.exponentialRampToValueAtTime(0.001, at + dur);
  osc.connect(og).connect(c.destination);
  osc.start(at);
  osc.stop(at + dur);
}

function tone(c: AudioContext, at: number, freq: number, dur: number, gain: number): void {
  const osc = c.createOscillator();
  osc.type = 'triangle';
  osc.frequency.value = freq;
  const g = c.createGain();
  g.gain.setValueAtTime(0.0001, at);
  g.gain.exponentialRampToValueAtTime(gain, at + 0.02);
  g.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  osc.connect(g).connect(c.destination);
  osc.start(at);
  osc.stop(at + dur + 0.05);
}

/** How many times each sound was asked for while not muted (read by the browser tests). */
export const played: Record<Sound, number> = { move: 0, capture: 0, check: 0, end: 0 };
(window as unknown as Record<string, unknown>).__makrukSounds = played;

export function play(s: Sound): void {
  if (muted) return;
  played[s]++;
  const c = audio();
  if (!c || c.state !== 'running') return;
  const t0 = c.currentTime + 0.01;
  switch (s) {
    case 'move':
      knock(c, t0, 1800, 0.9, 0.08);
      break;
    case 'capture':
      knock(c, t0, 1400, 1.0, 0.1);
      knock(c, t0 + 0.07, 2200, 0.7, 0.08);
      break;
    case 'check':
      knock(c, t0, 1800, 0.8, 0.08);
      tone(c, t0 + 0.05, 880, 0.18, 0.15);
      tone(c, t0 + 0.17, 1175, 0.22, 0.12);
      break;
    case 'end':
      tone(c, t0, 523, 0.3, 0.15);
      tone(c, t0 + 0.18, 659, 0.3, 0.15);
      tone(c, t0 + 0.36, 784, 0.5, 0.15);
      break;
  }
}
