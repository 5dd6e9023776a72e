"""Outside reference for `pnpm bench:real`: per-product Poisson and negative binomial (NB2) GLMs fitted with
statsmodels on exactly the days the engine's backtest fits on, with the same terms (intercept, log price, weekday,
promoted), scored on the same held-out rows. Benchmark only: the product never runs Python.

Usage: python glm_reference.py --products products.csv --sales sales.csv --split FROM:TO [--split ...]
                               [--refit daily,once]
Prints one JSON document: {"results": [{"from", "to", "refit", "rows", "poisson": {...}, "negative_binomial":
{...}, "seconds"}]}, each family's figures {wape, bias, coverage_p10_p90, mean_alpha}.
"""

import argparse
import csv
import datetime as dt
import json
import math
import sys
import time
import warnings

import numpy as np
import statsmodels.api as sm
from scipy import stats

warnings.filterwarnings("ignore")

# The engine's band rule (`unitsInterval` in packages/engine/src/learn/online-learner.ts): whole units put a lump of
# mass on each end, so p10 is the first count whose cdf less a quarter of its own mass reaches 0.1, p90 the last
# whose cdf below it plus a quarter of its own mass stays within 0.9. The same rule here keeps the coverages comparable.
END_SHARE = 0.25


def band(pmf):
    cdf = 0.0
    p10 = p90 = -1
    for units, p in enumerate(pmf):
        below = cdf
        cdf += p
        if p10 < 0 and cdf - END_SHARE * p >= 0.1:
            p10 = units
        if below + END_SHARE * p <= 0.9 or p90 < 0:
            p90 = units
    return max(0, p10), max(0, p10, p90)


def pmf_of(mu, alpha):
    top = int(mu + 12 * math.sqrt(mu * (1 + alpha * mu)) + 12)
    k = np.arange(top + 1)
    if alpha <= 1e-8:
        return stats.poisson.pmf(k, mu)
    n = 1.0 / alpha
    return stats.nbinom.pmf(k, n, n / (n + mu))


def design(rows, reference):
    x = np.zeros((len(rows), 9))
    for i, r in enumerate(rows):
        x[i, 0] = 1.0
        x[i, 1] = math.log(r["price"] / reference)
        if r["weekday"] > 0:
            x[i, 1 + r["weekday"]] = 1.0
        x[i, 8] = r["promoted"]
    return x


def fit(rows, reference, family, start):
    """Coefficients (and alpha for NB2) of one product's GLM; constant columns are left out of the fit."""
    x = design(rows, reference)
    y = np.array([r["units"] for r in rows], dtype=float)
    keep = [0] + [j for j in range(1, 9) if np.ptp(x[:, j]) > 0]
    xs = x[:, keep]
    beta = np.zeros(9)
    poisson = sm.GLM(y, xs, family=sm.families.Poisson()).fit()
    beta[keep] = poisson.params
    if family == "poisson":
        return beta, 0.0, beta
    try:
        params0 = np.append(poisson.params, 0.1 if start is None else max(start[1], 0.01))
        nb = sm.NegativeBinomial(y, xs, loglike_method="nb2").fit(
            start_params=params0, method="newton", maxiter=100, disp=0
        )
        params = np.asarray(nb.params)
        if not np.all(np.isfinite(params)):
            raise ValueError("diverged")
        beta[keep] = params[:-1]
        alpha = float(max(params[-1], 0.0))
    except Exception:
        # Pearson moment estimate around the Poisson fit when the NB2 likelihood does not converge.
        mu = poisson.fittedvalues
        alpha = float(max(0.0, np.sum(((y - mu) ** 2 - mu) / np.maximum(mu, 1e-9) ** 2) / len(y)))
    return beta, alpha, beta


def score(predictions):
    units = sum(p["units"] for p in predictions)
    error = sum(abs(p["units"] - p["mu"]) for p in predictions)
    signed = sum(p["mu"] - p["units"] for p in predictions)
    covered = sum(1 for p in predictions if p["p10"] <= p["units"] <= p["p90"])
    return {
        "wape": round(error / units, 4) if units > 0 else None,
        "bias": round(signed / units, 4) if units > 0 else None,
        "coverage_p10_p90": round(covered / len(predictions), 4) if predictions else None,
        "mean_alpha": round(float(np.mean([p["alpha"] for p in predictions])), 4) if predictions else None,
    }


def backtest(by_product, references, first, last, refit, family):
    predictions = []
    for product, rows in by_product.items():
        held = [r for r in rows if first <= r["date"] <= last]
        if not held:
            continue
        reference = references[product]
        cache = {}
        start = None
        for r in held:
            fit_day = first if refit == "once" else r["date"]
            if fit_day not in cache:
                history = [h for h in rows if h["date"] < fit_day]
                if len(history) < 10:
                    cache[fit_day] = None
                else:
                    beta, alpha, _ = fit(history, reference, family, start)
                    start = (beta, alpha)
                    cache[fit_day] = (beta, alpha)
            fitted = cache[fit_day]
            if fitted is None:
                continue
            beta, alpha = fitted
            mu = float(math.exp(design([r], reference)[0] @ beta))
            p10, p90 = band(pmf_of(mu, alpha))
            predictions.append({"units": r["units"], "mu": mu, "p10": p10, "p90": p90, "alpha": alpha})
    return predictions


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--products", required=True)
    parser.add_argument("--sales", required=True)
    parser.add_argument("--split", action="append", required=True)
    parser.add_argument("--refit", default="daily,once")
    args = parser.parse_args()
    with open(args.products, newline="") as f:
        references = {r["product_id"]: float(r["base_price"]) for r in csv.DictReader(f)}
    by_product = {}
    with open(args.sales, newline="") as f:
        for r in csv.DictReader(f):
            date = r["date"]
            by_product.setdefault(r["product_id"], []).append(
                {
                    "date": date,
                    "weekday": dt.date.fromisoformat(date).weekday(),
                    "price": float(r["price"]),
                    "units": float(r["units_sold"]),
                    "promoted": float(r.get("promoted") or 0),
                }
            )
    for rows in by_product.values():
        rows.sort(key=lambda r: r["date"])
    results = []
    for split in args.split:
        first, last = split.split(":")
        for refit in args.refit.split(","):
            started = time.process_time()
            families = {}
            rows = 0
            for family in ("poisson", "negative_binomial"):
                predictions = backtest(by_product, references, first, last, refit, family)
                rows = len(predictions)
                families[family] = score(predictions)
            results.append(
                {
                    "from": first,
                    "to": last,
                    "refit": refit,
                    "rows": rows,
                    **families,
                    "seconds": round(time.process_time() - started, 1),
                }
            )
            print(f"glm reference {first}..{last} refit {refit}: done", file=sys.stderr)
    json.dump({"statsmodels": sm.__version__, "results": results}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
