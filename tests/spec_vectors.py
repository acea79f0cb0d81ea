"""The deal-code spec's reference deals, shared by the deal and command-line tests."""

# Copied verbatim from the deal-code spec (spec/deal-codes.md), section "Vectors".
SPEC_VECTORS = {
    "HM1-N-AAAAAAA": """\
P1: 3d 8s Jc 6c 4d 2h 10c 7d
P2: Ah 8d 10d 6c Ah Ks Jh Kd
P3: 5d 9d 5s 9c 3h Qh 5h Js
P4: Qc 10d 8c 3h Jh 2c Ac 9c
P5: Ks Kh 4s 7h 5c 9h 6d 2d
P6: 2c 6s 3c Kc Ac Qs Jd 8h
P7: 4c 9h 5h 3d 6h Qh 5c 6d
P8: 8c Ad 7c 7d 8d 6h 10s 4s
P9: 8s Qc 2d 7h 2s 2h 9d Qs
P10: 5d Kd 3s 4h 7c 4d Js 3s
P11: 7s 3c 10c Jd As 2s Jc Kh
P12: Qd 9s 4h 6s 4c Ad 7s 10h
R: As 8h 10s 9s Kc 5s Qd 10h
""",
    "HM1-N-AAAAAAB": """\
P1: 6h 7h Jc 8c Ks 7d 6s 8c
P2: 6c 9c 5c 10h Kd Jh Ah Qs
P3: 10s 4d 3c 4c Jc 9s Js Kc
P4: 5s 3s 7s Ac 8s 9c 8d 9d
P5: Qd 3d 6c 7d As Ad As 6d
P6: 6h Kh 3h Kc Js 10d 5s 5d
P7: 2d 3s 2c 8h 7c 4s 8h 2h
P8: Jh 2s 9h 2c 5c 9s 5h 7c
P9: 3c 6s 2s Ah 10h 4s 9h Qh
P10: 4c 4d Qs Qh 2h 9d 4h Qc
P11: Ks 10c 7h 6d 5d 5h Ad 10s
P12: 2d Kh Qd 3h 8s Qc 3d 8d
R: 10d Kd Jd 10c Jd Ac 4h 7s
""",
    "HM1-N-AKKEEKB": """\
P1: 7c Ad 2s 9h 6h Ac 2d 8d
P2: 4d 6s 10h Js Qs 9d 10d Ad
P3: 10s Ac 8c 5c 5h 10d 3s 5h
P4: 7c 2c 4h 3d 4d 10c 7d Jd
P5: 10c 6h 6s Qd 8s Jc 3s 3c
P6: 8c 9s 6c 5s Kd Jc 7s Kd
P7: Ah Qd 10h As 6d Kc 2s 7h
P8: 3h 8h 4s Kh 2h 10s Jd 7s
P9: 2d 6d 8d Js 4c Kc As 5d
P10: 2h Jh 4s 5c Ah 9c 5d Qc
P11: Ks Ks Qc Jh Qh Qh Kh 3h
P12: 7h 7d 8h 9d 6c 3d 3c 8s
R: Qs 9h 9s 5s 4h 4c 9c 2c
""",
    "HM1-N-ZZZZZZZ": """\
P1: 7c 9s Jd 6s Kc As Ah 4s
P2: 2d 2c 2s 9d Js 6d 10s 9d
P3: 5h Jc 4d 8c Jc 5c Qc 10h
P4: 2c 4c 2h 10c 10c Qh 7h 3d
P5: 8d 6d 6s Js 3c 4d 6c 9h
P6: Qd 4c 5s Jd 8d Ks 8h 5s
P7: 5d Ah 2h 8c 6h 5c Ks 7d
P8: 4s 2d 9s Ac Kh Ad Kc 4h
P9: 3d 4h Ad Jh 3c Jh 10s Qc
P10: Qd As Kd 7d 9h 3s 9c Qs
P11: 7s Kh 2s Qh 7s 6c 3h Ac
P12: 8s 8s 5d Kd 7c 8h 10d 7h
R: 10h 5h 9c Qs 6h 3s 10d 3h
""",
}

VECTOR_NUMBERS = {
    "HM1-N-AAAAAAA": 0,
    "HM1-N-AAAAAAB": 1,
    "HM1-N-AKKEEKB": 123456789,
    "HM1-N-ZZZZZZZ": 8031810175,
}
