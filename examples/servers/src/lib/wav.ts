// A RIFF/WAVE file with 16-bit PCM samples: the smallest audio any player opens.

export interface WavOptions {
  sampleRate: number;
  /** Mono samples. */
  samples: Int16Array;
}

export function encodeWav({ sampleRate, samples }: WavOptions): Buffer {
  const dataBytes = samples.length * 2;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16); // fmt chunk size
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // channels
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28); // byte rate
  out.writeUInt16LE(2, 32); // block align
  out.writeUInt16LE(16, 34); // bits per sample
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i] as number, 44 + i * 2);
  return out;
}

/** A sine tone at half amplitude, faded in and out over 5 ms so it does not click. */
export function sineTone(frequency: number, seconds: number, sampleRate: number): Int16Array {
  const count = Math.round(seconds * sampleRate);
  const fade = Math.max(1, Math.round(0.005 * sampleRate));
  const samples = new Int16Array(count);
  for (let i = 0; i < count; i++) {
    const envelope = Math.min(1, i / fade, (count - 1 - i) / fade);
    samples[i] = Math.round(16_383 * envelope * Math.sin((2 * Math.PI * frequency * i) / sampleRate));
  }
  return samples;
}
