"""Author `data/map.yaml`: the dos game-map reconstructed from the ground of 1942.

The printed map of Drive on Stalingrad is not in the rulebook. This tool writes an
approximation of it at the rulebook's hex numbers: the real towns, rivers, railways,
coasts, forests and mountains of southern Russia (latitude and longitude from memory of
the ground, accurate to a few kilometres, which is a fraction of a 16 km hex), projected
onto the text's numbering by a least-squares fit to the hexes the text gives for 33 city
hexes (those hexes are kept exactly). It is the maintainer's tool, never run by pbem:

    python -m pbem.rulesets.dos.tools.mapgen            # rewrite data/map.yaml
    python -m pbem.rulesets.dos.tools.mapgen --show     # print the map as text

The numbering (see data/README.md): a hex id is N or S, the two-digit hexrow (rows run
east-west and are counted from the north edge of each sheet), then the two-digit position
in the row, counted from the east edge (16.51 calls N3025 "further east" than N3028).
Rows are straight lines of pointy-topped hexes; in the joined grid the row is the "column"
of the even-q layout, so N3426 touches N3326 and N3327 and S1202 touches S1302 and S1303.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from pbem.core.geometry.hexgrid import HexMap, Sheet, SheetedFormat

ROWS, POSITIONS = 40, 54           # each sheet: hexrows 01-40, positions 01-54
FORMAT = SheetedFormat("even-q", 2, [Sheet("N", (1, ROWS), (1, POSITIONS)),
                                     Sheet("S", (1, ROWS), (1, POSITIONS), (ROWS, 0))])
H = math.sqrt(3) / 2               # distance between hexrows, in hex widths

# --- the hexes the text gives (3.1, 5.11, 5.12 with errata, 6.39 errata, 19.2) ------------------

TOWNS = {  # name: (lat, lon)
    "Kursk": (51.73, 36.19), "Kharkov": (49.99, 36.23), "Mariupol": (47.10, 37.55), "Taganrog": (47.22, 38.90),
    "Voronezh": (51.67, 39.18), "Likhovskoy": (48.12, 40.28), "Millerovo": (48.92, 40.39), "Rostov": (47.235, 39.715),
    "Kalach": (48.69, 43.53), "Salsk": (46.47, 41.54), "Tikhoretsk": (45.85, 40.13), "Krasnodar": (45.04, 38.98),
    "Elista": (46.31, 44.26), "Maykop": (44.61, 40.10), "Georgiyevsk": (44.15, 43.47), "Prokhladnyy": (43.76, 44.03),
    "Novorossiysk": (44.72, 37.77), "Stalingrad": (48.71, 44.51), "Astrakhan": (46.35, 48.03), "Sochi": (43.59, 39.72),
    "Tuapse": (44.10, 39.07), "Groznyy": (43.32, 45.69), "Povorino": (51.19, 42.25), "Svobody": (50.98, 39.50),
    "Kamyshin": (50.08, 45.41), "Rtishchevo": (52.26, 43.78), "Balashov": (51.55, 43.17), "Saratov": (51.53, 46.03),
    "Tambov": (52.72, 41.44), "Nevinnomyssk": (44.63, 41.94),
    # other towns (reconstructed: real positions)
    "Belgorod": (50.60, 36.59), "Kastornoye": (51.82, 38.13), "Stary Oskol": (51.30, 37.84), "Valuiki": (50.21, 38.10),
    "Volchansk": (50.29, 36.94), "Kupiansk": (49.71, 37.61), "Izium": (49.21, 37.26), "Svatove": (49.41, 38.15),
    "Lisichansk": (48.90, 38.43), "Voroshilovgrad": (48.57, 39.31), "Rossosh": (50.19, 39.56),
    "Kantemirovka": (49.70, 39.86), "Chertkovo": (49.38, 40.14), "Kamensk": (48.32, 40.26), "Shakhty": (47.71, 40.21),
    "Novocherkassk": (47.42, 40.09), "Stalino": (48.00, 37.80), "Debaltsevo": (48.34, 38.40), "Ilovaisk": (47.92, 38.20),
    "Artemovsk": (48.60, 38.00), "Slavyansk": (48.85, 37.60), "Lozovaya": (48.89, 36.32), "Volnovakha": (47.60, 37.50),
    "Krasnoarmeysk": (48.28, 37.18), "Gryazi": (52.49, 39.94), "Atkarsk": (51.87, 45.00), "Engels": (51.48, 46.12),
    "Borisoglebsk": (51.37, 42.08), "Talovaya": (51.11, 40.73), "Ostrogozhsk": (50.87, 39.07), "Alekseyevka": (50.63, 38.69),
    "Frolovo": (49.77, 43.65), "Ilovlya": (49.30, 44.00), "Kotluban": (48.87, 44.20), "Petrov Val": (50.14, 45.21),
    "Krasny Yar": (50.70, 44.45), "Yelan": (51.0, 43.75), "Surovikino": (48.61, 42.85), "Oblivskaya": (48.53, 42.50),
    "Morozovsk": (48.35, 41.83), "Tatsinskaya": (48.20, 41.27), "Chir": (48.47, 43.20), "Kotelnikovo": (47.63, 43.14),
    "Zimovniki": (47.15, 42.47), "Proletarskaya": (46.70, 41.72), "Bataysk": (47.14, 39.75), "Kushchevskaya": (46.56, 39.63),
    "Kropotkin": (45.44, 40.58), "Armavir": (44.99, 41.12), "Mineralnye Vody": (44.21, 43.14), "Pyatigorsk": (44.05, 43.06),
    "Mozdok": (43.74, 44.65), "Beslan": (43.19, 44.54), "Gudermes": (43.35, 46.10), "Kizlyar": (43.85, 46.71),
    "Ordzhonikidze": (43.04, 44.67), "Nalchik": (43.49, 43.62), "Belorechenskaya": (44.77, 39.87), "Krymskaya": (44.93, 38.00),
    "Stavropol": (45.04, 41.97), "Divnoye": (45.91, 43.35), "Yeysk": (46.71, 38.27), "Starominskaya": (46.53, 39.05), "Timashevsk": (45.62, 38.94),
    "Ust-Labinsk": (45.21, 39.69), "Budyonnovsk": (44.78, 44.16), "Cherkessk": (44.23, 42.06), "Anapa": (44.89, 37.32),
    "Mechetinskaya": (46.77, 40.47), "Leninsk": (48.69, 45.20), "Akhtuba": (48.28, 46.17), "Baskunchak": (48.21, 46.83),
    "Elton": (49.13, 46.85), "Pallasovka": (50.05, 46.88), "Urbakh": (51.13, 47.13), "Krasny Kut": (50.95, 46.97),
    "Boguchar": (49.94, 40.55), "Bobrov": (51.10, 40.03), "Anna": (51.49, 40.42), "Uryupinsk": (50.80, 42.00),
    "Novokhopersk": (51.10, 41.62), "Serafimovich": (49.58, 42.73), "Kletskaya": (49.31, 43.06), "Yenotayevka": (47.25, 47.03),
    "Remontnoye": (46.56, 43.65), "Belaya Kalitva": (48.18, 40.78), "Chernyshkovsky": (48.42, 42.23),
    "Bokovskaya": (49.23, 41.83), "Veshenskaya": (49.63, 41.73), "Pavlovsk": (50.45, 40.10), "Kazanskaya": (49.80, 41.12),
    "Mikhailovka": (50.06, 43.23), "Dubovka": (49.06, 44.83), "Gumrak": (48.79, 44.38), "Krasnoarmeysk Volga": (48.52, 44.56),
    "Starobelsk": (49.28, 38.91), "Lazarevskoye": (43.93, 39.36), "Dzhubga": (44.36, 38.75), "Konstantinovskaya": (47.58, 41.10), "Tsimlyanskaya": (47.65, 42.10),
}

# 3.1, 5.11, 5.12 (errata), 6.39 (errata), 19.2 (errata): the hexes as the text gives them
PINNED = {
    "Kursk": ["N0754"], "Kharkov": ["N2154", "N2253"], "Mariupol": ["S0750"], "Taganrog": ["S0643"],
    "Voronezh": ["N0741", "N0841", "N0840"], "Likhovskoy": ["N3836"], "Millerovo": ["N3036"], "Rostov": ["S0639"],
    "Kalach": ["N3221"], "Salsk": ["S1331"], "Tikhoretsk": ["S1737"], "Krasnodar": ["S2443"], "Elista": ["S1416"],
    "Maykop": ["S2838"], "Georgiyevsk": ["S3121"], "Prokhladnyy": ["S3417"], "Novorossiysk": ["S2649"],
    "Stalingrad": ["N3117", "N3217"], "Astrakhan": ["S1001"], "Sochi": ["S3639"], "Tuapse": ["S3242"],
    "Groznyy": ["S3710"], "Povorino": ["N1228"], "Svobody": ["N1340"], "Kamyshin": ["N2013"], "Rtishchevo": ["N0421"],
    "Balashov": ["N0924"], "Saratov": ["N0811", "N0812"], "Tambov": ["N0132"], "Nevinnomyssk": ["S2728"],
    "Engels": ["N0911"],
}
FIT_EXCLUDED = {"Astrakhan", "Engels"}   # beyond the east edge / placed by the 6.38 rail link


def _row(hex_id: str) -> int:
    prefix, row, _ = FORMAT.printed(hex_id)
    return row + (ROWS if prefix == "S" else 0)


def plane(hex_id: str) -> tuple[float, float]:
    """The hex's centre: x grows westward in hex widths, y southward."""
    prefix, row, pos = FORMAT.printed(hex_id)
    q = row + (ROWS if prefix == "S" else 0)
    return pos - 0.5 * (q % 2), H * q


def _km(lat: float, lon: float) -> tuple[float, float]:
    return (lon - 42.0) * 111.32 * math.cos(math.radians(lat)), (48.0 - lat) * 110.57


def _solve3(rows: list, ys: list) -> list[float]:
    m = [[0.0] * 3 for _ in range(3)]
    v = [0.0] * 3
    for r, y in zip(rows, ys):
        for i in range(3):
            v[i] += r[i] * y
            for j in range(3):
                m[i][j] += r[i] * r[j]
    for i in range(3):
        for j in range(i + 1, 3):
            f = m[j][i] / m[i][i]
            for k in range(3):
                m[j][k] -= f * m[i][k]
            v[j] -= f * v[i]
    x = [0.0] * 3
    for i in reversed(range(3)):
        x[i] = (v[i] - sum(m[i][k] * x[k] for k in range(i + 1, 3))) / m[i][i]
    return x


def _fit() -> tuple[list[float], list[float]]:
    rows, xs, ys = [], [], []
    for name, hexes in PINNED.items():
        if name in FIT_EXCLUDED:
            continue
        for h in hexes:
            k = _km(*TOWNS[name])
            rows.append((k[0], k[1], 1.0))
            x, y = plane(h)
            xs.append(x)
            ys.append(y)
    return _solve3(rows, xs), _solve3(rows, ys)


FIT_X, FIT_Y = _fit()


def project(lat: float, lon: float) -> tuple[float, float]:
    k = _km(lat, lon)
    return (FIT_X[0] * k[0] + FIT_X[1] * k[1] + FIT_X[2], FIT_Y[0] * k[0] + FIT_Y[1] * k[1] + FIT_Y[2])


def point(p) -> tuple[float, float]:
    """A waypoint: a town name, (lat, lon), or ("@", hex, dx, drow): an offset from a hex centre
    in hex widths westward and hexrows southward."""
    if isinstance(p, str):
        return plane(PINNED[p][0]) if p in PINNED else project(*TOWNS[p])
    if p[0] == "@":
        x, y = plane(p[1])
        return x + p[2], y + H * p[3]
    return project(*p)


ALL_IDS = [FORMAT.format_offset(q, pos) for q in range(1, 2 * ROWS + 1) for pos in range(1, POSITIONS + 1)]
GRID = HexMap(ALL_IDS, FORMAT)
CENTRE = {h: plane(h) for h in ALL_IDS}


def hex_at(x: float, y: float) -> str | None:
    """The hex whose centre is nearest, the point being first moved onto the map."""
    y = min(max(y, H), H * 2 * ROWS)
    x = min(max(x, 0.5), POSITIONS)
    q0 = round(y / H)
    best, dist = None, 9.0
    for q in (q0 - 1, q0, q0 + 1):
        if not 1 <= q <= 2 * ROWS:
            continue
        for pos in (round(x + 0.5 * (q % 2)) + d for d in (-1, 0, 1)):
            if 1 <= pos <= POSITIONS:
                h = FORMAT.format_offset(q, pos)
                cx, cy = CENTRE[h]
                d = (cx - x) ** 2 + (cy - y) ** 2
                if d < dist:
                    best, dist = h, d
    return best


def town_hex(name: str) -> str:
    return PINNED[name][0] if name in PINNED else hex_at(*project(*TOWNS[name]))


# --- terrain -------------------------------------------------------------------------------------
# Polygons (lat, lon); the last that holds a hex centre decides (so list from general to
# particular). Sea and lake hexes are not part of the playing area.

SEA_AZOV = [(47.06, 35.0), (46.76, 36.8), (47.04, 37.56), (47.04, 38.2), (47.10, 38.9), (47.08, 39.38),
            (47.02, 39.22), (46.72, 38.3), (46.40, 38.0), (46.05, 38.15), (45.75, 37.9), (45.32, 37.3),
            (45.28, 36.6), (45.4, 35.5), (46.0, 35.0)]
SEA_BLACK = [(45.22, 35.0), (45.22, 36.62), (45.05, 36.95), (44.95, 37.22), (44.70, 37.68), (44.58, 38.02),
             (44.30, 38.64), (44.05, 39.02), (43.88, 39.30), (43.55, 39.66), (43.38, 39.98), (43.18, 40.4),
             (42.9, 41.1), (41.5, 41.6), (41.5, 35.0)]
SEA_CASPIAN = [(46.6, 48.6), (45.8, 47.95), (45.38, 47.42), (44.95, 47.12), (44.50, 46.98), (44.0, 47.38),
               (43.5, 47.52), (42.98, 47.55), (41.5, 48.2), (41.5, 50.0), (46.6, 50.0)]
LIGHT_WOODS = [
    [(52.3, 39.2), (52.3, 39.9), (51.75, 39.8), (51.75, 39.25)],            # Usman forest north of Voronezh
    [(52.8, 41.0), (52.8, 41.9), (52.25, 41.9), (52.25, 41.0)],             # Tsna forests about Tambov
    [(51.45, 41.55), (51.45, 42.35), (51.05, 42.35), (51.05, 41.55)],       # Khoper forest
    [(51.05, 40.0), (51.05, 40.55), (50.75, 40.55), (50.75, 40.0)],         # Shipov forest
    [(49.35, 37.0), (49.35, 38.25), (48.8, 38.25), (48.8, 37.0)],           # Donets forests, Izium to Lisichansk
    [(50.55, 36.2), (50.55, 36.9), (50.0, 36.9), (50.0, 36.45)],            # woods about Belgorod and Kharkov
    [(49.75, 41.2), (49.75, 42.0), (49.45, 42.0), (49.45, 41.2)],           # sand forests of the upper Don
    [(51.8, 44.9), (51.8, 46.0), (51.2, 46.0), (51.2, 44.9)],               # Volga heights west of Saratov
    [(48.75, 44.75), (48.9, 45.25), (48.1, 46.2), (47.6, 46.6), (47.45, 46.3), (48.45, 44.95)],  # Volga-Akhtuba floodplain
]
HEAVY_WOODS = [
    [(52.65, 41.2), (52.65, 41.7), (52.35, 41.7), (52.35, 41.2)],           # the deep Tsna forest
    [(49.22, 37.35), (49.22, 37.95), (48.95, 37.95), (48.95, 37.35)],       # the old forests of the Donets at Sviatohirsk
    [(51.05, 40.15), (51.05, 40.5), (50.85, 40.5), (50.85, 40.15)],         # the Shipov oak forest
    [(45.0, 37.35), (44.98, 38.6), (44.72, 39.6), (44.62, 40.45), (44.35, 41.0), (44.1, 41.0), (44.05, 39.2),
     (44.5, 38.3), (44.8, 37.6)],                                           # forests of the western Caucasus
]
ROUGH = [
    [(48.45, 38.0), (48.45, 39.9), (47.95, 39.9), (47.9, 38.0)],            # the Donets ridge
    [(45.25, 41.55), (45.25, 42.4), (44.85, 42.4), (44.85, 41.55)],         # the Stavropol heights
    [(44.6, 38.9), (44.55, 40.0), (44.45, 40.8), (44.25, 41.5), (44.05, 42.3), (44.1, 43.0), (43.7, 43.8),
     (43.5, 44.5), (43.45, 45.2), (43.25, 46.3), (42.9, 46.8), (42.7, 47.2), (43.0, 45.0), (43.35, 43.4),
     (43.7, 42.0), (44.0, 40.6), (44.2, 39.3)],                             # the foothills of the Caucasus
    [(44.3, 42.85), (44.3, 43.25), (44.0, 43.25), (44.0, 42.85)],           # the hills of Mineralnye Vody
]
MOUNTAIN = [[(44.22, 39.25), (44.28, 39.8), (44.1, 40.5), (43.92, 41.2), (43.72, 42.0), (43.56, 42.8), (43.40, 43.4),
             (43.16, 44.0), (42.95, 44.6), (43.0, 45.3), (42.92, 46.0), (42.82, 46.6), (42.6, 47.3), (41.5, 47.6),
             (41.5, 40.4), (43.15, 40.35), (43.42, 39.95), (43.68, 39.52), (44.0, 39.2)]]

# --- hexsides ------------------------------------------------------------------------------------
# Rivers as polylines; a hexside is on a river when the river crosses the segment joining
# the two hex centres. Waypoints: towns, (lat, lon), or ("@", hex, dx, drow).

DON = [(52.6, 38.85), (52.2, 38.95), (51.9, 39.05), ("@", "N0741", 1.0, -0.5), ("@", "N0841", 0.7, 0.4),
       ("@", "N1041", 0.1, 0.2), ("@", "N1240", 0.5, 0.4), ("@", "N1340", 0.6, 0.1), ("@", "N1440", 0.6, 0.5),
       (50.45, 40.2), (50.17, 40.42), (49.98, 40.62), (49.80, 41.15), (49.64, 41.75), (49.56, 42.2),
       (49.56, 42.75), (49.36, 43.0), (49.26, 43.35), (49.16, 43.58), (49.0, 43.58), ("@", "N3121", -0.55, 0.0),
       ("@", "N3221", 0.55, 0.0), ("@", "N3322", 0.3, 0.5), (48.35, 43.05), (48.05, 42.85), (47.7, 42.25),
       (47.6, 41.5), (47.57, 41.05), (47.52, 40.6), (47.33, 40.4), (47.26, 39.95), ("@", "S0639", 0.0, 0.55),
       (47.15, 39.5), (47.12, 39.3)]
VORONEZH_RIVER = [(52.7, 39.55), (52.3, 39.58), ("@", "N0139", 0.5, 0.0), ("@", "N0439", 0.6, 0.0),
                  ("@", "N0640", 0.4, 0.3), ("@", "N0740", 0.5, 0.1), ("@", "N0841", -0.5, -0.1),
                  ("@", "N0941", -0.3, 0.3), ("@", "N1041", 0.1, 0.2)]
VOLGA = [(53.0, 48.3), (52.4, 47.7), (52.05, 47.35), (51.8, 46.6), ("@", "N0811", -0.55, -0.6),
         ("@", "N0811", -0.55, 0.0), ("@", "N0911", 0.5, 0.2), ("@", "N1011", -0.6, 0.5), (51.0, 45.75),
         (50.6, 45.6), ("@", "N2013", -0.55, -0.3), ("@", "N2013", -0.55, 0.5), (49.8, 45.2), (49.4, 44.95),
         (49.06, 44.9), ("@", "N3017", -0.5, 0.0), ("@", "N3117", -0.55, 0.0), ("@", "N3217", -0.55, 0.0),
         ("@", "N3317", -0.4, 0.5), (48.45, 44.65), (48.2, 45.0), (48.05, 45.6), (47.7, 46.3), (47.25, 47.05),
         (46.85, 47.5), ("@", "S0801", 0.0, 0.5), ("@", "S0901", 0.5, 0.3), ("@", "S0901", -0.5, 0.6)]
MINOR_RIVERS = {
    "Donets": [(50.95, 36.55), (50.6, 36.63), (50.29, 36.97), (50.08, 36.84), (49.84, 36.72), (49.68, 36.4),
               (49.46, 36.88), (49.22, 37.3), (48.96, 37.62), (48.93, 38.1), (48.93, 38.44), (48.65, 39.5),
               (48.33, 40.3), (48.17, 40.8), (47.85, 40.9), (47.63, 40.92)],
    "Oskol": [(51.5, 37.8), (51.3, 37.88), (50.76, 37.9), (50.2, 38.0), (49.71, 37.65), (49.22, 37.35)],
    "Aidar": [(50.3, 39.05), (49.75, 38.95), (49.28, 38.93), (48.68, 39.2)],
    "Tikhaya Sosna": [(50.7, 38.1), (50.63, 38.72), (50.87, 39.1), (50.92, 39.35)],
    "Kalitva": [(50.2, 39.62), (49.7, 40.02), (49.2, 40.38), (48.7, 40.62), (48.19, 40.8)],
    "Chir": [(49.45, 41.1), (49.23, 41.86), (48.98, 42.04), ("@", "N3028", -0.5, 0.0), ("@", "N3127", 0.0, 0.5),
             ("@", "N3326", 0.2, 0.5), ("@", "N3425", 0.45, -0.3), (48.6, 42.87), (48.46, 43.05), (48.36, 43.1)],
    "Khoper": [(52.3, 43.5), (51.9, 43.3), (51.55, 43.12), (51.35, 42.6), (51.37, 42.1), (51.1, 41.66),
               (50.8, 42.04), (50.3, 42.32), (49.62, 42.42)],
    "Vorona": [(52.3, 42.05), (51.8, 42.1), (51.38, 42.06)],
    "Medveditsa": [(52.0, 45.2), (51.88, 45.02), (51.35, 44.7), ("@", "N1418", -0.2, -0.5), ("@", "N1517", 0.5, 0.3),
                   (50.45, 43.75), (50.06, 43.26), (49.62, 42.9)],
    "Ilovlya": [(50.6, 45.35), (50.2, 45.0), (49.75, 44.45), (49.3, 44.05), (49.22, 43.85)],
    "Bityug": [(52.3, 40.15), (51.6, 40.1), (51.1, 40.05), (50.7, 40.15)],
    "Sal": [(46.6, 43.9), (47.0, 42.8), (47.15, 42.0), (47.35, 41.3), (47.52, 40.8)],
    "Manych": [(47.26, 40.3), (47.05, 40.75), (46.85, 41.3), (46.7, 41.75), (46.58, 42.25)],
    "Yegorlyk": [(45.1, 41.95), (45.6, 41.6), (46.1, 41.5), (46.5, 41.65)],
    "Kuban": [(43.5, 41.9), (44.23, 42.1), ("@", "S2728", 0.0, 0.55), (44.99, 41.2), (45.44, 40.65), (45.2, 39.7),
              ("@", "S2443", 0.0, 0.55), (45.18, 38.5), (45.26, 38.13), (45.3, 37.45)],
    "Laba": [(44.1, 41.0), (44.63, 40.78), (45.0, 40.2), (45.18, 39.75)],
    "Belaya": [(44.2, 40.05), ("@", "S2838", -0.5, 0.0), (45.0, 39.62)],
    "Terek": [(42.9, 44.62), (43.3, 44.3), (43.63, 44.08), (43.72, 44.65), (43.62, 45.3), ("@", "S3710", 0.0, -0.6),
              (43.75, 46.2), (43.85, 46.7), (44.0, 47.25)],
    "Kuma": [(43.95, 42.6), (44.21, 43.1), (44.22, 43.55), (44.78, 44.16), (44.75, 45.0), (44.8, 46.0), (44.85, 46.95)],
    "Yeya": [(46.0, 40.6), (46.3, 40.0), (46.55, 39.4), (46.68, 38.6)],
    "Aksai": [(47.85, 44.1), (47.7, 43.55), (47.78, 42.98)],
    "Tsimla": [(48.45, 41.75), (48.1, 41.95), (47.7, 42.08)],
}
LAKE_HEXSIDES = {  # all-lake hexsides (10.29): the narrow lakes of the Manych depression
    "Manych-Gudilo": [(46.6, 42.28), (46.45, 42.75), (46.3, 43.2), (46.15, 43.62)],
}

# --- railways of 1942 (sequences of towns) ------------------------------------------------------
RAIL = [
    ["@N0154", "Kursk", "Belgorod", "Kharkov"],
    ["Kursk", "Kastornoye", "Voronezh"],
    ["@N0144", "Kastornoye", "Stary Oskol", "Valuiki", "Kupiansk", "Svatove", "Lisichansk", "Debaltsevo"],
    ["Kharkov", "Kupiansk"],
    ["Valuiki", "Alekseyevka", "Ostrogozhsk", "Svobody"],
    ["@N0140", "Gryazi", "Voronezh", "Svobody", "Rossosh", "Kantemirovka", "Chertkovo", "Millerovo", "Kamensk",
     "Likhovskoy", "Shakhty", "Novocherkassk", "Rostov"],
    ["Svobody", "Talovaya", "Povorino", "Balashov", "Yelan", "@N1419", "@N1616", "Petrov Val", "Kamyshin"],
    ["@N0136", "Gryazi", "Borisoglebsk", "Povorino", "Frolovo", "Ilovlya", "Kotluban", "Gumrak", "Stalingrad"],
    ["Tambov", "Rtishchevo", "Atkarsk", "Saratov"],
    ["Tambov", "Balashov"],
    ["Engels", "Urbakh", "@N1001"],
    ["@N1701", "Pallasovka", "Elton", "Baskunchak", "Akhtuba", "Leninsk"],
    ["Pallasovka", "Krasny Kut", "Urbakh"],
    ["Baskunchak", "@S0601"],
    ["Stalingrad", "Chir", "Surovikino", "@N3326", "@N3426", "Morozovsk", "Tatsinskaya", "Likhovskoy"],
    ["Stalingrad", "@N3217", "@N3318", "@N3419", "@N3520", "Kotelnikovo", "Zimovniki", "Proletarskaya", "Salsk",
     "Tikhoretsk"],
    ["Rostov", "Bataysk", "Kushchevskaya", "Tikhoretsk", "Kropotkin", "Armavir", "Nevinnomyssk", "Mineralnye Vody",
     "Georgiyevsk", "Prokhladnyy", "Beslan", "Groznyy", "Gudermes", "@S3801"],
    ["Bataysk", "Mechetinskaya", "Salsk"],
    ["Tikhoretsk", "Timashevsk", "Krasnodar", "Krymskaya", "Novorossiysk"],
    ["Kropotkin", "Ust-Labinsk", "Krasnodar"],
    ["Armavir", "Belorechenskaya", "Tuapse", "Lazarevskoye", "Sochi"],
    ["Belorechenskaya", "Maykop"],
    ["Kropotkin", "Stavropol"],
    ["Mineralnye Vody", "Pyatigorsk"],
    ["Beslan", "Ordzhonikidze"],
    ["Gudermes", "Kizlyar"],
    ["Kharkov", "Lozovaya", "Slavyansk", "Artemovsk", "Debaltsevo", "Likhovskoy"],
    ["Debaltsevo", "Ilovaisk", "Taganrog", "Rostov"],
    ["Ilovaisk", "Stalino", "Volnovakha", "Mariupol"],
    ["Stalino", "Krasnoarmeysk", "@N3754"],
    ["Lozovaya", "@N2554"],
    ["Debaltsevo", "Voroshilovgrad", "Millerovo"],
    ["Krymskaya", "Anapa"],
    # the branches of 1942 to the minor cities the main lines pass by (Elista had no railroad)
    ["Izium", "Slavyansk"],
    ["Kalach", "@N3320"],
    ["Nalchik", "Prokhladnyy"],
    ["Prokhladnyy", "Mozdok"],
    ["@S1045", "Starominskaya", "Kushchevskaya"],   # Yeysk (its town hex on land)
    ["Georgiyevsk", "Budyonnovsk"],
    ["Nevinnomyssk", "Cherkessk"],
    # Voronezh's third hex joined to the city's junction: a Major city is one station (6.36)
    ["@N0741", "@N0841"],
]
RAIL_LINKS = [  # 6.37, 6.38 and 6.39 with the errata: off-map and special connections
    {"hexes": ["S1001", "S0601"], "cost": 10, "rule": "6.37"},
    {"hexes": ["N1701", "N1001"], "cost": 10, "rule": "6.37"},
    {"hexes": ["S1001", "N1701"], "cost": 40, "rule": "6.38"},
    {"hexes": ["S1001", "N1001"], "cost": 40, "rule": "6.38"},
    {"hexes": ["S0601", "N1701"], "cost": 40, "rule": "6.38"},
    {"hexes": ["S0601", "N1001"], "cost": 40, "rule": "6.38"},
    {"hexes": ["N0811", "N0911"], "cost": 10, "rule": "6.38"},
    {"hexes": ["N2154", "N2253"], "cost": 4, "rule": "6.39"},
    {"hexes": ["N2154", "N3754"], "cost": 25, "rule": "6.39"},
    {"hexes": ["N2253", "N3754"], "cost": 25, "rule": "6.39"},
]

# The 28 June 1942 front line, from the north edge to the Sea of Azov east of Taganrog
FRONT = [(52.75, 37.25), (52.2, 37.2), (51.62, 37.15), (51.1, 37.3), (50.6, 37.3), (50.3, 37.25), (50.0, 37.45),
         (49.71, 37.72), (49.35, 37.55), (49.15, 37.6), (48.98, 38.0), (48.97, 38.35), (48.7, 38.62),
         (48.35, 38.72), (48.1, 38.88), (47.8, 38.88), (47.55, 38.9), (47.35, 39.0), (47.2, 39.08)]

CITIES = [  # name, class, VP (19.2) -- the VP table and classes are reconstructed except where data/README says
    ("Kursk", "major"), ("Kharkov", "major"), ("Mariupol", "major"), ("Taganrog", "minor"), ("Voronezh", "major"),
    ("Likhovskoy", "minor"), ("Millerovo", "minor"), ("Rostov", "major"), ("Kalach", "minor"), ("Salsk", "minor"),
    ("Tikhoretsk", "minor"), ("Krasnodar", "major"), ("Elista", "minor"), ("Maykop", "minor"),
    ("Georgiyevsk", "minor"), ("Prokhladnyy", "minor"), ("Novorossiysk", "minor"), ("Stalingrad", "major"),
    ("Astrakhan", "major"), ("Sochi", "minor"), ("Tuapse", "minor"), ("Groznyy", "major"), ("Povorino", "minor"),
    ("Svobody", "minor"), ("Kamyshin", "minor"), ("Rtishchevo", "minor"), ("Balashov", "minor"), ("Saratov", "major"),
    ("Tambov", "minor"), ("Nevinnomyssk", "minor"),
    ("Stalino", "major"), ("Voroshilovgrad", "minor"), ("Belgorod", "minor"), ("Kupiansk", "minor"), ("Izium", "minor"),
    ("Slavyansk", "minor"), ("Artemovsk", "minor"), ("Lisichansk", "minor"), ("Kamensk", "minor"), ("Shakhty", "minor"),
    ("Novocherkassk", "minor"), ("Ostrogozhsk", "minor"), ("Rossosh", "minor"), ("Borisoglebsk", "minor"),
    ("Atkarsk", "minor"), ("Engels", "minor"), ("Frolovo", "minor"), ("Kotelnikovo", "minor"), ("Morozovsk", "minor"),
    ("Armavir", "minor"), ("Kropotkin", "minor"), ("Stavropol", "minor"), ("Mineralnye Vody", "minor"),
    ("Pyatigorsk", "minor"), ("Nalchik", "minor"), ("Mozdok", "minor"), ("Ordzhonikidze", "minor"),
    ("Kizlyar", "minor"), ("Yeysk", "minor"), ("Valuiki", "minor"), ("Stary Oskol", "minor"),
    ("Kastornoye", "minor"), ("Gryazi", "minor"), ("Belorechenskaya", "minor"), ("Budyonnovsk", "minor"),
    ("Cherkessk", "minor"), ("Zimovniki", "minor"), ("Tatsinskaya", "minor"), ("Lozovaya", "minor"),
]
FRACTIONAL = ["S3243", "S2848", "S2452", "S1303"]   # errata: fractional land hexes are off limits


# --- building ------------------------------------------------------------------------------------

def _inside(x: float, y: float, poly: list[tuple[float, float]]) -> bool:
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _intersects(p1, p2, q1, q2) -> bool:
    d1, d2 = _cross(q1, q2, p1), _cross(q1, q2, p2)
    d3, d4 = _cross(p1, p2, q1), _cross(p1, p2, q2)
    return (d1 > 0) != (d2 > 0) and (d3 > 0) != (d4 > 0)


def _pairs():
    for a in ALL_IDS:
        for b in GRID.neighbours(a):
            if a < b:
                yield a, b


PAIRS = list(_pairs())


def hexsides_crossed(waypoints) -> list[str]:
    pts = [point(p) for p in waypoints]
    out = []
    for (p1, p2) in zip(pts, pts[1:]):
        lo_x, hi_x = min(p1[0], p2[0]) - 1.5, max(p1[0], p2[0]) + 1.5
        lo_y, hi_y = min(p1[1], p2[1]) - 1.5, max(p1[1], p2[1]) + 1.5
        for a, b in PAIRS:
            ca, cb = CENTRE[a], CENTRE[b]
            if not (lo_x <= ca[0] <= hi_x and lo_y <= ca[1] <= hi_y):
                continue
            if _intersects(p1, p2, ca, cb):
                out.append(f"{a}/{b}")
    return sorted(set(out))


def terrain() -> dict[str, str]:
    def polys(lst):
        return [[project(*p) for p in poly] for poly in lst]
    layers = [("l", polys(LIGHT_WOODS)), ("h", polys(HEAVY_WOODS)), ("r", polys(ROUGH)), ("m", polys(MOUNTAIN)),
              ("~", polys([SEA_AZOV, SEA_BLACK, SEA_CASPIAN]))]
    out = {}
    for h in ALL_IDS:
        x, y = CENTRE[h]
        code = "."
        for c, ps in layers:
            if any(_inside(x, y, p) for p in ps):
                code = c
        out[h] = code
    for h in FRACTIONAL:
        out[h] = "x"
    for name, hexes in PINNED.items():   # every city the text names is a land hex
        for h in hexes:
            if out[h] in "~xm":
                out[h] = "h" if out[h] == "m" else "."
    return out


WARNINGS: list[str] = []


def rail_lines(land: set[str]) -> list[list[str]]:
    lines = []
    for line in RAIL:
        hexes: list[str] = []
        for stop in line:
            h = stop[1:] if stop.startswith("@") else town_hex(stop)
            if hexes:
                step = GRID.line(hexes[-1], h)[1:]
                hexes.extend(step)
            else:
                hexes.append(h)
        dedup = [hexes[0]] + [h for i, h in enumerate(hexes[1:], 1) if h != hexes[i - 1]]
        for h in dedup:
            if h not in land:
                WARNINGS.append(f"railway {line[0]}-{line[-1]} runs through {h}, which is not land")
        lines.append(dedup)
    return lines


def front_line() -> list[str]:
    hexes: list[str] = []
    for p in FRONT:
        h = hex_at(*project(*p))
        if hexes:
            hexes.extend(GRID.line(hexes[-1], h)[1:])
        else:
            hexes.append(h)
    out = [hexes[0]] + [h for i, h in enumerate(hexes[1:], 1) if h != hexes[i - 1]]
    return out


def build() -> dict:
    codes = terrain()
    land = {h for h, c in codes.items() if c not in "~xo"}
    rivers = [{"name": "Don", "kind": "don", "hexsides": hexsides_crossed(DON)},
              {"name": "Voronezh", "kind": "minor", "hexsides": hexsides_crossed(VORONEZH_RIVER)},
              {"name": "Volga", "kind": "volga", "hexsides": hexsides_crossed(VOLGA)}]
    for name, wp in MINOR_RIVERS.items():
        rivers.append({"name": name, "kind": "minor", "hexsides": hexsides_crossed(wp)})
    for r in rivers:   # a river hexside between a land hex and the sea is the coast, not a river
        r["hexsides"] = [k for k in r["hexsides"] if all(h in land for h in k.split("/"))]
    lakes = [{"name": n, "hexsides": [k for k in hexsides_crossed(wp) if all(h in land for h in k.split("/"))]}
             for n, wp in LAKE_HEXSIDES.items()]
    rows = {}
    for q in range(1, 2 * ROWS + 1):
        ids = [FORMAT.format_offset(q, pos) for pos in range(1, POSITIONS + 1)]
        prefix, row, _ = FORMAT.printed(ids[0])
        rows[f"{prefix}{row:02d}"] = "".join(codes[h] for h in ids)
    cities = []
    for name, cls in CITIES:
        hexes = PINNED.get(name) or [town_hex(name)]
        if hexes[0] not in land and name not in PINNED:   # a coastal town whose centre falls in the sea
            hexes = [min((n for n in GRID.neighbours(hexes[0]) if n in land),
                         key=lambda n: (sum((a - b) ** 2 for a, b in zip(CENTRE[n], project(*TOWNS[name]))), n))]
        for h in hexes:
            assert h in land, f"{name} {h} is not land"
        cities.append({"name": name, "class": cls, "hexes": hexes})
    return {"rows": rows, "rivers": rivers, "lakes": lakes, "rail": rail_lines(land), "rail_links": RAIL_LINKS,
            "front": front_line(), "cities": cities}


def show(built: dict) -> str:
    river = set()
    for r in built["rivers"]:
        for k in r["hexsides"]:
            river.update(k.split("/"))
    rail = {h for line in built["rail"] for h in line}
    city = {h for c in built["cities"] for h in c["hexes"]}
    front = set(built["front"])
    lines = []
    for name, s in built["rows"].items():
        q = _row(f"{name}01")
        cells = []
        for pos in range(POSITIONS, 0, -1):   # west on the left
            h = f"{name}{pos:02d}"
            c = s[pos - 1]
            if h in city:
                c = "C"
            elif h in front:
                c = "F"
            elif h in rail:
                c = "+" if c == "." else c.upper()
            cells.append(c)
        lines.append(f"{name} " + (" " if q % 2 else "") + " ".join(cells))
    return "\n".join(lines)


def svg(built: dict, scale: float = 14.0) -> str:
    """A picture for checking the reconstruction by eye (west on the left, north at the top)."""
    fill = {".": "#e8e4c9", "l": "#b8d8a0", "h": "#6fa860", "r": "#c8a878", "m": "#8a7060", "~": "#9cc8f0",
            "o": "#9cc8f0", "x": "#ffffff"}

    def sxy(h):
        x, y = CENTRE[h]
        return (POSITIONS + 1 - x) * scale, y * scale

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{(POSITIONS + 2) * scale:.0f}" '
           f'height="{(2 * ROWS + 2) * H * scale:.0f}" font-size="{scale * 0.55:.1f}">']
    r = scale / math.sqrt(3)
    for name, row in built["rows"].items():
        for pos, code in enumerate(row, start=1):
            h = f"{name}{pos:02d}"
            cx, cy = sxy(h)
            pts = " ".join(f"{cx + r * math.cos(math.radians(a)):.1f},{cy + r * math.sin(math.radians(a)):.1f}"
                           for a in range(30, 390, 60))
            out.append(f'<polygon points="{pts}" fill="{fill[code]}" stroke="#ccc" stroke-width="0.3"/>')
    for h in built["front"]:
        cx, cy = sxy(h)
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.8:.1f}" fill="none" stroke="red" stroke-width="1.5"/>')
    for line in built["rail"]:
        pts = " ".join(f"{sxy(h)[0]:.1f},{sxy(h)[1]:.1f}" for h in line)
        out.append(f'<polyline points="{pts}" fill="none" stroke="black" stroke-width="1"/>')
    for river in built["rivers"] + [dict(l, kind="lake") for l in built["lakes"]]:
        colour, width = {"don": ("#0030a0", 3), "volga": ("#0030a0", 4), "minor": ("#3070f0", 1.5),
                         "lake": ("#00c0c0", 3)}[river["kind"]]
        for key in river["hexsides"]:
            a, b = key.split("/")
            (ax, ay), (bx, by) = sxy(a), sxy(b)
            mx, my, dx, dy = (ax + bx) / 2, (ay + by) / 2, (by - ay) / 2, -(bx - ax) / 2
            k = 1 / math.sqrt(3)
            out.append(f'<line x1="{mx + dx * k:.1f}" y1="{my + dy * k:.1f}" x2="{mx - dx * k:.1f}" '
                       f'y2="{my - dy * k:.1f}" stroke="{colour}" stroke-width="{width}"/>')
    for city in built["cities"]:
        for h in city["hexes"]:
            cx, cy = sxy(h)
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * (0.5 if city["class"] == "major" else 0.3):.1f}" '
                       f'fill="red"/>')
        cx, cy = sxy(city["hexes"][0])
        out.append(f'<text x="{cx + r * 0.6:.1f}" y="{cy - r * 0.4:.1f}">{city["name"]} {city["hexes"][0]}</text>')
    out.append("</svg>")
    return "\n".join(out)


def check(built: dict) -> list[str]:
    """The text's facts about the map that the reconstruction must keep (each cites its rule)."""
    sides = {}
    for r in built["rivers"]:
        for k in r["hexsides"]:
            sides[k] = r["name"]
    rail = set()
    for line in built["rail"]:
        for a, b in zip(line, line[1:]):
            rail.add(GRID.hexside(a, b))
    rail = {tuple(k.split("/")) for k in rail}

    def side(a, b):
        return sides.get(GRID.hexside(a, b))

    problems = []

    def need(ok, what):
        if not ok:
            problems.append(what)

    need(side("N3028", "N3027") not in (None, "Don", "Volga"), "10.21: N3028/N3027 is a minor river hexside")
    need(side("N3426", "N3326") not in (None, "Don", "Volga"), "10.43: N3426/N3326 is a minor river hexside")
    need(tuple(GRID.hexside("N3426", "N3326").split("/")) in rail, "10.43: a railroad joins N3426 and N3326")
    for h in ("N3117", "N3217", "N0811", "N2013", "S1001"):
        need(any(side(h, n) == "Volga" for n in GRID.neighbours(h)), f"10.28/12.15: {h} is a city on the Volga")
    need(side("N0811", "N0911") == "Volga", "6.38: the N0811-N0911 rail link crosses the Volga")
    line = next((ln for ln in built["rail"] if "N1419" in ln and "N1616" in ln), None)
    need(line is not None, "10.43: a railroad connects N1616 and N1419")
    if line:
        a, b = sorted((line.index("N1419"), line.index("N1616")))
        seg = line[a:b + 1]
        need(len(seg) == 5, "10.43: N1616 to N1419 is four hexes along the railroad")
        need(any(side(x, y) not in (None, "Don", "Volga") for x, y in zip(seg, seg[1:])),
             "10.43: the railroad N1616-N1419 crosses a river (so following it saves Movement Points)")
    for a, b in rail:
        need(sides.get(f"{a}/{b}") != "Volga", f"6.39: the railroad {a}-{b} crosses the Volga, which only the links do")
    for c in built["cities"]:
        for other_c in built["cities"]:
            if c is not other_c:
                need(not set(c["hexes"]) & set(other_c["hexes"]), f"{c['name']} and {other_c['name']} share a hex")
    need(any(side("N3221", n) == "Don" for n in GRID.neighbours("N3221")), "Kalach N3221 lies on the Don")
    need(any(side("N1340", n) == "Don" for n in GRID.neighbours("N1340")), "Svobody N1340 lies on the Don")
    need(any(side("S0639", n) == "Don" for n in GRID.neighbours("S0639")), "Rostov S0639 lies on the Don")
    need(any(side("N0840", n) == "Voronezh" for n in GRID.neighbours("N0840")), "15.41: N0840 across the Voronezh")
    need(any(side("N0139", n) == "Voronezh" for n in GRID.neighbours("N0139")), "16.31: N0139 on the Voronezh")
    return problems


if __name__ == "__main__":
    built = build()
    print("\n".join(check(built)))
    if "--show" in sys.argv:
        print(show(built))
        print("\n".join(WARNINGS))
    elif "--svg" in sys.argv:
        Path(sys.argv[sys.argv.index("--svg") + 1]).write_text(svg(built))
        print("\n".join(WARNINGS))
    else:
        from pbem.rulesets.dos.tools import mapwrite
        mapwrite.write(built, Path(__file__).resolve().parents[1] / "data" / "map.yaml")
