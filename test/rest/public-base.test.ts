// The base address of the v2 links: configured, or the listening address; the Host header only behind a
// trusted proxy.
import { describe, expect, it } from 'vitest';
import { listeningBase, publicBaseFor } from '../../src/http/public-base.js';

const request = (headers: Record<string, string>) => new Request('http://ignored/', { headers });

describe('public base address', () => {
  it('uses PUBLIC_URL when set', () => {
    const base = publicBaseFor({ publicUrl: 'https://api.example.com', trustProxy: false }, 'http://127.0.0.1:4000');
    expect(base(request({ host: 'evil.example' }))).toBe('https://api.example.com');
  });

  it('ignores Host and X-Forwarded-* by default', () => {
    const base = publicBaseFor({ publicUrl: undefined, trustProxy: false }, 'http://127.0.0.1:4000');
    expect(base(request({ host: 'evil.example', 'x-forwarded-host': 'evil.example' }))).toBe('http://127.0.0.1:4000');
  });

  it('follows X-Forwarded-Proto and X-Forwarded-Host behind a trusted proxy', () => {
    const base = publicBaseFor({ publicUrl: undefined, trustProxy: true }, 'http://127.0.0.1:4000');
    expect(base(request({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com, proxy.local' }))).toBe(
      'https://api.example.com',
    );
    expect(base(request({ host: 'bad host/<x>' }))).toBe('http://127.0.0.1:4000');
  });

  it('names a reachable address for wildcard listeners', () => {
    expect(listeningBase('0.0.0.0', 4000)).toBe('http://127.0.0.1:4000');
    expect(listeningBase('::', 80)).toBe('http://[::1]:80');
    expect(listeningBase('127.0.0.1', 4000)).toBe('http://127.0.0.1:4000');
  });
});
