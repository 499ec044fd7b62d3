;; The embedding-bag networks' hidden layer, h = ReLU(W x + b), with 128-bit SIMD (built into
;; dense-relu.wasm by `npm run build:wasm`; wasm-dense-relu.ts loads it and lays the weights out).
;;
;; denseRelu(n, rows, cols, w, b, x, out): for each of n networks k and each row r,
;;   out[k][r] = max(0, b[k][r] + sum over c in column order of w[k][r][c] * x[k][c])
;; with float32 weights and biases widened to float64 and float64 sums, as scorers.ts's affine()
;; adds them, so the results are the same to the bit (no fused multiply-add in WebAssembly).
;; Layout: each network's rows in pairs, a pair's two weights of one column side by side
;; (w[k] at w + k * rows * cols * 4: pair p, column c at (p * cols + c) * 8), its biases likewise
;; (b + k * rows * 4), x[k] at x + k * cols * 8, out[k] at out + k * rows * 8. A float64x2 lane holds
;; one row's sum; four pairs (eight rows) go at once so their chains of dependent additions
;; overlap. rows must be a multiple of 8.
(module
  (import "env" "memory" (memory 1))
  (func (export "denseRelu")
    (param $n i32) (param $rows i32) (param $cols i32) (param $w i32) (param $b i32) (param $x i32) (param $out i32)
    (local $k i32) (local $p i32) (local $c i32) (local $wp i32) (local $xc i32) (local $pairBytes i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128) (local $xv v128)
    ;; bytes of one pair's weights over all columns
    (local.set $pairBytes (i32.shl (local.get $cols) (i32.const 3)))
    (block $networksDone (loop $networks
      (br_if $networksDone (i32.ge_u (local.get $k) (local.get $n)))
      (local.set $p (i32.const 0))
      (block $pairsDone (loop $pairs
        (br_if $pairsDone (i32.ge_u (i32.shl (local.get $p) (i32.const 1)) (local.get $rows)))
        (local.set $s0 (f64x2.promote_low_f32x4 (v128.load64_zero offset=0 (local.get $b))))
        (local.set $s1 (f64x2.promote_low_f32x4 (v128.load64_zero offset=8 (local.get $b))))
        (local.set $s2 (f64x2.promote_low_f32x4 (v128.load64_zero offset=16 (local.get $b))))
        (local.set $s3 (f64x2.promote_low_f32x4 (v128.load64_zero offset=24 (local.get $b))))
        (local.set $wp (local.get $w))
        (local.set $xc (local.get $x))
        (local.set $c (i32.const 0))
        (block $colsDone (loop $columns
          (br_if $colsDone (i32.ge_u (local.get $c) (local.get $cols)))
          (local.set $xv (v128.load64_splat (local.get $xc)))
          (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $wp))) (local.get $xv))))
          (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (f64x2.promote_low_f32x4
            (v128.load64_zero (i32.add (local.get $wp) (local.get $pairBytes)))) (local.get $xv))))
          (local.set $s2 (f64x2.add (local.get $s2) (f64x2.mul (f64x2.promote_low_f32x4
            (v128.load64_zero (i32.add (local.get $wp) (i32.shl (local.get $pairBytes) (i32.const 1))))) (local.get $xv))))
          (local.set $s3 (f64x2.add (local.get $s3) (f64x2.mul (f64x2.promote_low_f32x4
            (v128.load64_zero (i32.add (local.get $wp) (i32.mul (local.get $pairBytes) (i32.const 3))))) (local.get $xv))))
          (local.set $wp (i32.add (local.get $wp) (i32.const 8)))
          (local.set $xc (i32.add (local.get $xc) (i32.const 8)))
          (local.set $c (i32.add (local.get $c) (i32.const 1)))
          (br $columns)))
        ;; ReLU as the JavaScript `h > 0 ? h : 0`: NaN and -0 become +0.
        (v128.store offset=0 (local.get $out) (v128.bitselect (local.get $s0) (v128.const i64x2 0 0) (f64x2.gt (local.get $s0) (v128.const i64x2 0 0))))
        (v128.store offset=16 (local.get $out) (v128.bitselect (local.get $s1) (v128.const i64x2 0 0) (f64x2.gt (local.get $s1) (v128.const i64x2 0 0))))
        (v128.store offset=32 (local.get $out) (v128.bitselect (local.get $s2) (v128.const i64x2 0 0) (f64x2.gt (local.get $s2) (v128.const i64x2 0 0))))
        (v128.store offset=48 (local.get $out) (v128.bitselect (local.get $s3) (v128.const i64x2 0 0) (f64x2.gt (local.get $s3) (v128.const i64x2 0 0))))
        (local.set $w (i32.add (local.get $w) (i32.shl (local.get $pairBytes) (i32.const 2))))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (local.set $out (i32.add (local.get $out) (i32.const 64)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $pairs)))
      (local.set $x (i32.add (local.get $x) (i32.shl (local.get $cols) (i32.const 3))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $networks)))))
