## Octave's linear algebra and FFTs, run once without the shim (the reference) and again
## under it.
##
##   octave-cli octave_linalg_fft.m save FILE      # the reference run: results saved to FILE
##   octave-cli octave_linalg_fft.m compare FILE   # under the shim: compared with FILE, then
##                                                 # "N checks, M failed" (shimtest.py)
##
## Two kinds of check: Octave's own test blocks of the functions that reach BLAS, LAPACK and
## FFTW must pass and fail exactly as without the shim (the same blocks), and results of larger problems (real
## and complex, single and double) must agree with Octave's own within 100 eps n. Vectors
## are compared through what LAPACK fixes: reconstructions, projectors, residuals.
1;

## The order of the matrices, which scales the tolerance.
function n = order ()
  n = 160;
endfunction

function results = compute_results ()
  results = struct ();
  randn ("seed", 20261130);
  n = order ();
  for precision = {"double", "single"}
    for complex_entries = [false, true]
      tag = sprintf ("%s_%s", precision{1}, merge (complex_entries, "complex", "real"));
      A = random_matrix (n, n, complex_entries, precision{1});
      b = random_matrix (n, 3, complex_entries, precision{1});
      S = A' * A + n * eye (n, precision{1});
      H = (A + A') / 2;
      tall = random_matrix (3 * n, n / 2, complex_entries, precision{1});
      tall_rhs = random_matrix (3 * n, 2, complex_entries, precision{1});
      [U, sigma, V] = svd (A);
      [Q, R] = qr (A);
      [vectors, values] = eig (H);
      [pair_vectors, pair_values] = eig (H, S);
      [L, Up, P] = lu (A);
      previous_driver = svd_driver ("gesdd");
      [U2, sigma2, V2] = svd (tall, "econ");
      svd_driver (previous_driver);
      results.(tag) = {A * b, A' * A, A * A.', A \ b, inv(A), det(A(1:40, 1:40)), chol(S), S \ b, ...
                       tall \ tall_rhs, diag(sigma), U * sigma * V', ...
                       U(:, 1:5) * U(:, 1:5)', abs(diag(R)), Q * R, diag(values), ...
                       vectors(:, 1:5) * vectors(:, 1:5)', diag(pair_values), ...
                       H * pair_vectors - S * pair_vectors * pair_values, P' * L * Up, ...
                       diag(sigma2), U2 * sigma2 * V2', sort(abs(eig(A))), pinv(tall), ...
                       expm(H / n)};
      signal = random_matrix (65536, 2, complex_entries, precision{1});
      prime = random_matrix (997, 3, complex_entries, precision{1});
      cube = random_matrix (64 * 48, 30, complex_entries, precision{1});
      cube = reshape (cube, 64, 48, 30);
      results.([tag "_fft"]) = {fft(signal), ifft(fft(signal)), fft(prime), ifft(prime), ...
                                fft(signal, [], 2), fft2(prime), fftn(cube), ifftn(cube), ...
                                fft(prime, 4096), real(ifft(fft(signal)))};
    endfor
  endfor
endfunction

function M = random_matrix (m, n, complex_entries, precision)
  M = randn (m, n);
  if (complex_entries)
    M = M + 1i * randn (m, n);
  endif
  M = cast (M, precision);
endfunction

function passes = run_octave_tests ()
  tests = fullfile (OCTAVE_HOME, "share", "octave", version, "etc", "tests");
  scripts = fullfile (OCTAVE_HOME, "share", "octave", version, "m");
  files = [strcat([tests "/libinterp/corefcn/"], {"fft.cc-tst", "fft2.cc-tst", "lu.cc-tst", ...
                  "chol.cc-tst", "qr.cc-tst", "svd.cc-tst", "eig.cc-tst", "inv.cc-tst", ...
                  "det.cc-tst", "schur.cc-tst", "pinv.cc-tst"}), ...
           {[tests "/libinterp/dldfcn/fftw.cc-tst"], [tests "/fixed/leftdiv.tst"], ...
            [scripts "/linear-algebra/expm.m"], [scripts "/linear-algebra/null.m"], ...
            [scripts "/linear-algebra/lscov.m"], [scripts "/optimization/lsqnonneg.m"]}];
  passes = struct ("file", {}, "total", {}, "failing", {});
  for k = 1:numel (files)
    log_file = [tempname() ".log"];
    log = fopen (log_file, "w");
    [~, total] = test (files{k}, "quiet", log);
    fclose (log);
    text = fileread (log_file);
    delete (log_file);
    ## A failed block is logged as "***** " and its text, then a line from "!!!!! ".
    failing = regexp (text, '\*{5} ([^\n]*(?:\n(?!\*{5}|!{5})[^\n]*)*)\n!{5}', "tokens");
    failing = sort (cellfun (@(t) t{1}, failing, "UniformOutput", false));
    [~, name, extension] = fileparts (files{k});
    passes(end + 1) = struct ("file", [name extension], "total", total, "failing", {failing});
  endfor
endfunction

function failed = compare_values (name, got, expected)
  failed = 0;
  for k = 1:numel (expected)
    e = double (expected{k}(:));
    g = double (got{k}(:));
    finite = isfinite (e);
    infinite = isinf (e);
    if (numel (g) != numel (e) || any (isfinite (g) != finite) || any (isnan (g) != isnan (e))
        || ! isequal (g(infinite), e(infinite)))
      printf ("FAIL %s{%d}: shape or non-finite entries differ\n", name, k);
      failed++;
      continue;
    endif
    scale = max ([1; abs(e(finite))]);
    error_ratio = max ([0; abs(g(finite) - e(finite))]) / (eps (class (expected{k})) * order () * scale);
    if (! (error_ratio <= 100))
      printf ("FAIL %s{%d}: error %.3g x eps x n x scale\n", name, k, error_ratio);
      failed++;
    endif
  endfor
endfunction

arguments = argv ();
if (numel (arguments) != 2 || ! any (strcmp (arguments{1}, {"save", "compare"})))
  error ("usage: octave-cli octave_linalg_fft.m save|compare FILE");
endif
passes = run_octave_tests ();
results = compute_results ();
if (strcmp (arguments{1}, "save"))
  save ("-binary", arguments{2}, "passes", "results");
  printf ("saved %d test files and %d result sets\n", numel (passes), numel (fieldnames (results)));
  exit (0);
endif

reference = load (arguments{2});
checks = 0;
failed = 0;
for k = 1:numel (reference.passes)
  expected = reference.passes(k);
  got = passes(k);
  checks++;
  if (expected.total == 0 || got.total != expected.total || ! isequal (got.failing, expected.failing))
    printf ("FAIL %s: %d of %d test blocks failed, without the shim %d of %d; failed only with it:\n",
            expected.file, numel (got.failing), got.total, numel (expected.failing), expected.total);
    printf ("  %s\n", setdiff (got.failing, expected.failing){:});
    failed++;
  endif
endfor
for name = fieldnames (reference.results)'
  checks += numel (reference.results.(name{1}));
  failed += compare_values (name{1}, results.(name{1}), reference.results.(name{1}));
endfor
printf ("%d checks, %d failed\n", checks, failed);
exit (failed > 0);
