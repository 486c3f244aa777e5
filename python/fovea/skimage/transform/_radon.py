"""placeholder"""
def radon(*a, **k): raise NotImplementedError
iradon = iradon_sart = order_angles_golden_ratio = radon
