#!/usr/bin/env python3
"""Medians and paired ratios of tls-churn-ab.sh's output.

usage: tls-churn-ab.py OUT NAME [NAME ...]   (the last NAME is the reference)
"""
import json
import statistics as st
import sys

out, names = sys.argv[1], sys.argv[2:]
ref = names[-1]
rounds = {}
for line in open(out):
    r, name, ticks, times, res = line.split(' ', 4)
    j = json.loads(res)
    user, system, idle = map(float, times.split(','))
    conns = j['connections']
    rounds.setdefault(int(r), {})[name] = {
        'server': int(ticks) * 10000 / conns,  # clock ticks of 10 ms -> µs
        'conns': j['conns_per_sec'],
        'client': (user + system) * 1e6 / conns,
        'hs': j['handshake']['p50_ms'],
        'req': j['request']['p50_ms'],
        'idle': idle * 100,
    }

def med(name, key):
    return st.median(v[name][key] for v in rounds.values() if name in v)

for n in names:
    print(f"{n}: server {med(n, 'server'):.0f} µs/conn, client {med(n, 'client'):.0f} µs/conn, "
          f"{med(n, 'conns'):.0f} conn/s, handshake p50 {med(n, 'hs'):.2f} ms, "
          f"request p50 {med(n, 'req'):.2f} ms, idle {med(n, 'idle'):.1f} %")
for n in names[:-1]:
    pairs = [v for v in rounds.values() if n in v and ref in v]
    cpu = [v[ref]['server'] / v[n]['server'] for v in pairs]
    cps = [v[n]['conns'] / v[ref]['conns'] for v in pairs]
    cli = [v[n]['client'] / v[ref]['client'] for v in pairs]
    print(f"  {ref} ÷ {n}, server CPU per connection: {st.median(cpu):.3f}; "
          f"{n} ÷ {ref}, conn/s: {st.median(cps):.3f} (≥ 1 in {sum(x >= 1 for x in cps)} of {len(cps)}); "
          f"client CPU per connection {n} ÷ {ref}: {st.median(cli):.3f}  ({len(pairs)} rounds)")
