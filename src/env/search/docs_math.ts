// The math and statistics modules, as of CPython 3.12. Same rules as docs_builtins.ts.
import { entries } from './entries.ts';

export const MATH_DOCS = entries([
  [
    'math.comb(n, k)',
    'Number of ways to choose k items from n without repetition and without order: the binomial coefficient "n choose k", a count of combinations. `math.comb(5, 2) == 10`',
  ],
  [
    'math.perm(n, k=None)',
    'Number of ways to choose k items from n in order, each used at most once: a count of arrangements (permutations), where order matters; n! when k is omitted. `math.perm(5, 2) == 20`',
  ],
  [
    'math.gcd(*integers)',
    'Greatest common divisor of the integers: the largest number that divides them all (highest common factor). `math.gcd(12, 18) == 6`',
  ],
  [
    'math.lcm(*integers)',
    'Least common multiple of the integers: the smallest positive number that is a multiple of them all. `math.lcm(4, 6) == 12`',
  ],
  [
    'math.factorial(n)',
    'n factorial, n! = 1 * 2 * ... * n: the product of the positive integers up to n, the number of orderings of n items. `math.factorial(5) == 120`',
  ],
  [
    'math.isqrt(n)',
    'Integer square root: the largest integer whose square is at most n (the square root rounded down), exact for big integers. `math.isqrt(10) == 3`',
  ],
  ['math.sqrt(x)', 'Square root of x, as a float. `math.sqrt(16) == 4.0`'],
  [
    'math.prod(iterable, *, start=1)',
    'Product of all the numbers in an iterable such as a list (multiply them together), times start. `math.prod([2, 3, 4]) == 24`',
  ],
  [
    'math.fsum(iterable)',
    'Accurate floating-point sum of the values, without the rounding error of adding one at a time. `math.fsum([0.1] * 10) == 1.0`',
  ],
  [
    'math.floor(x)',
    'Round down: the largest integer less than or equal to x. `math.floor(-2.5) == -3`',
  ],
  [
    'math.ceil(x)',
    'Round up: the smallest integer greater than or equal to x. `math.ceil(2.1) == 3`',
  ],
  [
    'math.trunc(x)',
    'Drop the fractional part of x, rounding toward zero, as an integer. `math.trunc(-2.7) == -2`',
  ],
  [
    'math.log(x[, base])',
    'Natural logarithm of x (base e), or the logarithm of x to the given base. `math.log(8, 2) == 3.0`',
  ],
  ['math.log2(x)', 'Base-2 logarithm of x, more accurate than math.log(x, 2).'],
  ['math.log10(x)', 'Base-10 (common) logarithm of x. `math.log10(1000) == 3.0`'],
  ['math.exp(x)', 'e raised to the power x (the exponential function).'],
  [
    'math.pow(x, y)',
    'x raised to the power y, as a float; use ** or pow() for exact integer powers.',
  ],
  [
    'math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)',
    'True if a and b are approximately equal, within a relative (or absolute) tolerance: compare floats safely.',
  ],
  [
    'math.pi',
    "The constant pi = 3.141592653589793, the ratio of a circle's circumference to its diameter.",
  ],
  ['math.e', "Euler's number e = 2.718281828459045, the base of natural logarithms."],
  [
    'math.inf',
    'Positive infinity as a float; -math.inf is negative infinity, a handy start for a running minimum or maximum.',
  ],
  [
    'math.dist(p, q)',
    'Euclidean distance between two points given as sequences of coordinates. `math.dist((0, 0), (3, 4)) == 5.0`',
  ],
  [
    'math.hypot(*coordinates)',
    'Length of a vector: the square root of the sum of squares of the coordinates (hypotenuse of a right triangle). `math.hypot(3, 4) == 5.0`',
  ],
  ['math.sin(x)', 'Sine of x, an angle in radians.'],
  ['math.cos(x)', 'Cosine of x, an angle in radians.'],
  ['math.tan(x)', 'Tangent of x, an angle in radians.'],
  [
    'math.atan2(y, x)',
    'Angle in radians from the positive x axis to the point (x, y), between -pi and pi.',
  ],
  ['math.degrees(x)', 'Convert an angle from radians to degrees.'],
  ['math.radians(x)', 'Convert an angle from degrees to radians.'],
  ['math.fabs(x)', 'Absolute value of x as a float.'],
  ['math.isnan(x)', 'True if x is a NaN (not a number) float.'],
  [
    'math.sumprod(p, q)',
    'Sum of the products of matching values from two iterables: the dot product. `math.sumprod([1, 2], [3, 4]) == 11`',
  ],
  [
    'statistics.mean(data)',
    'Arithmetic mean (the average) of the data, such as a list of numbers: their sum divided by their count. `statistics.mean([1, 2, 3, 4]) == 2.5`',
  ],
  [
    'statistics.fmean(data, weights=None)',
    'Fast floating-point mean (average) of the data, always a float; weights gives a weighted average.',
  ],
  [
    'statistics.median(data)',
    'Median (middle value) of the data; the average of the two middle values when the count is even. `statistics.median([1, 3, 5, 7]) == 4.0`',
  ],
  [
    'statistics.median_low(data)',
    'Low median of the data: the smaller of the two middle values when the count is even, so always a data point.',
  ],
  [
    'statistics.median_high(data)',
    'High median of the data: the larger of the two middle values when the count is even, so always a data point.',
  ],
  [
    'statistics.mode(data)',
    'Most common (most frequent) value of the data; the first one met if several tie. `statistics.mode([1, 2, 2, 3]) == 2`',
  ],
  [
    'statistics.multimode(data)',
    'List of the most frequent values in the order first met: every mode when several tie. `statistics.multimode("aabbc") == ["a", "b"]`',
  ],
  [
    'statistics.stdev(data, xbar=None)',
    'Sample standard deviation of the data (divides by n - 1): how spread out the values are.',
  ],
  [
    'statistics.pstdev(data, mu=None)',
    'Population standard deviation of the data (divides by n): how spread out the values are.',
  ],
  [
    'statistics.variance(data, xbar=None)',
    'Sample variance of the data (divides by n - 1): the spread as squared distances from the mean, stdev squared.',
  ],
  [
    'statistics.pvariance(data, mu=None)',
    'Population variance of the data (divides by n): the spread as squared distances from the mean, pstdev squared.',
  ],
  [
    "statistics.quantiles(data, *, n=4, method='exclusive')",
    'Cut points dividing the data into n groups of equal probability: the quartiles by default, n=100 for percentiles.',
  ],
  [
    'statistics.geometric_mean(data)',
    'Geometric mean of the data: the n-th root of the product of n positive values.',
  ],
  [
    'statistics.harmonic_mean(data, weights=None)',
    'Harmonic mean of the data: n divided by the sum of reciprocals, e.g. an average of speeds.',
  ],
  [
    'statistics.correlation(x, y)',
    "Pearson's correlation coefficient of two sequences, between -1 and 1: how linearly related they are.",
  ],
  [
    'statistics.linear_regression(x, y, /, *, proportional=False)',
    'Slope and intercept of the least-squares line y = slope * x + intercept that best fits the points.',
  ],
]);
