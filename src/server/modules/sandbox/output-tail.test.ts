import { describe, expect, it } from 'vitest';
import { OutputTail } from './output-tail.js';

describe('OutputTail', () => {
  it('keeps everything until the limit, then the last bytes across many small writes', () => {
    const tail = new OutputTail(10);
    tail.push(Buffer.from('abc'));
    expect(tail.text()).toBe('abc');
    for (const piece of ['defg', 'hij', 'klmno', 'p']) tail.push(Buffer.from(piece));
    expect(tail.text()).toBe('ghijklmnop');
  });

  it('keeps the end of one write larger than the limit', () => {
    const tail = new OutputTail(4);
    tail.push(Buffer.from('xy'));
    tail.push(Buffer.from('0123456789'));
    expect(tail.text()).toBe('6789');
  });

  it('drops a character whose first bytes were cut off', () => {
    const tail = new OutputTail(5);
    tail.push(Buffer.from('aé€b')); // 1 + 2 + 3 + 1 bytes: the cut falls inside "é"
    expect(tail.text()).toBe('€b');
  });
});
