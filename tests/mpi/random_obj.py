#!/usr/bin/env python3
"""A random triangle soup as OBJ for the MPI and shard tests (issue 14): rolling terrain
on a grid whose spacing is not a multiple of the cell size, floating slabs (several
floors), ramps, and large triangles across many cells. Deterministic per seed.
usage: random_obj.py SEED SIZE OUT.obj   (SIZE: world units along x and z)"""
import random
import sys

seed, size, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
verts, faces = [], []


def v(x, y, z):
    verts.append((x, y, z))
    return len(verts)


step = 0.77 + rng.random() * 0.4
n = int(size / step)
h = [[rng.uniform(-0.3, 0.3) + 1.5 * ((i * j) % 7) / 7.0 for j in range(n + 1)] for i in range(n + 1)]
idx = [[v(i * step, h[i][j], j * step) for j in range(n + 1)] for i in range(n + 1)]
for i in range(n):
    for j in range(n):
        a, b, c, d = idx[i][j], idx[i + 1][j], idx[i + 1][j + 1], idx[i][j + 1]
        faces += [(a, d, c), (a, c, b)]  # up-facing (counter-clockwise from above)
for _ in range(rng.randint(3, 8)):  # floating slabs
    x0, z0 = rng.uniform(0, size * 0.8), rng.uniform(0, size * 0.8)
    w, d, y = rng.uniform(2, size * 0.3), rng.uniform(2, size * 0.3), rng.uniform(2.5, 6)
    a, b, c, e = v(x0, y, z0), v(x0 + w, y, z0), v(x0 + w, y, z0 + d), v(x0, y, z0 + d)
    faces += [(a, e, c), (a, c, b)]
for _ in range(rng.randint(1, 4)):  # ramps
    x0, z0 = rng.uniform(0, size * 0.8), rng.uniform(0, size * 0.8)
    w, d, y = rng.uniform(2, 8), rng.uniform(4, 12), rng.uniform(1, 4)
    a, b, c, e = v(x0, 1.5, z0), v(x0 + w, 1.5, z0), v(x0 + w, y, z0 + d), v(x0, y, z0 + d)
    faces += [(a, e, c), (a, c, b)]
for _ in range(rng.randint(1, 3)):  # big triangles
    a = v(rng.uniform(0, size), rng.uniform(0, 3), rng.uniform(0, size))
    b = v(rng.uniform(0, size), rng.uniform(0, 3), rng.uniform(0, size))
    c = v(rng.uniform(0, size), rng.uniform(0, 3), rng.uniform(0, size))
    faces.append((a, b, c))
with open(out, "w") as f:
    f.write("# random_obj.py %d %g\n" % (seed, size))
    for p in verts:
        f.write("v %.4f %.4f %.4f\n" % p)
    for t in faces:
        f.write("f %d %d %d\n" % t)
