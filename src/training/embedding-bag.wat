;; The embedding bag's two loops in training (train-mlp.ts), with float64x2 SIMD (built into
;; embedding-bag.wasm by `npm run build:wasm`; wasm-embedding-bag.ts loads it). Each float64 lane
;; follows one dimension through the features in their order and rounds to float32 where the
;; JavaScript stores into a Float32Array, so the trained weights are the same to the bit.
;;
;; bagSum(feat, count, emb, dim, out): out[d] = 0 + sum over i in order of f64(emb[feat[i] * dim + d]).
;; adagradRows(feat, count, emb, g, dim, dh0, norm, lr): for each feature row in order and each
;;   d with dh0[d] != 0 (as the JavaScript skips), grad = dh0[d] * norm, then
;;     g = f32(g + grad * grad);  p = f32(p - (lr * grad) / sqrt(g + 1e-8))
;;   (train-mlp.ts step()). feat: uint32 row ids; emb, g: float32 tables of dim per row; dh0, out:
;;   float64 vectors of dim. dim must be even.
(module
  (import "env" "memory" (memory 1))
  (func (export "bagSum") (param $feat i32) (param $count i32) (param $emb i32) (param $dim i32) (param $out i32)
    (local $d i32) (local $i i32) (local $acc v128) (local $rowBytes i32) (local $f i32)
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    (block $dimsDone (loop $dims
      (br_if $dimsDone (i32.ge_u (local.get $d) (local.get $dim)))
      (local.set $acc (v128.const i64x2 0 0))
      (local.set $i (i32.const 0))
      (local.set $f (local.get $feat))
      (block $featsDone (loop $feats
        (br_if $featsDone (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $acc (f64x2.add (local.get $acc) (f64x2.promote_low_f32x4 (v128.load64_zero
          (i32.add (i32.add (local.get $emb) (i32.mul (i32.load (local.get $f)) (local.get $rowBytes))) (i32.shl (local.get $d) (i32.const 2)))))))
        (local.set $f (i32.add (local.get $f) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $feats)))
      (v128.store (i32.add (local.get $out) (i32.shl (local.get $d) (i32.const 3))) (local.get $acc))
      (local.set $d (i32.add (local.get $d) (i32.const 2)))
      (br $dims))))

  (func (export "adagradRows")
    (param $feat i32) (param $count i32) (param $emb i32) (param $g i32) (param $dim i32) (param $dh0 i32) (param $norm f64) (param $lr f64)
    (local $i i32) (local $d i32) (local $row i32) (local $at i32) (local $rowBytes i32)
    (local $dh v128) (local $live v128) (local $grad v128) (local $g64 v128) (local $gNew v128) (local $p64 v128) (local $pNew v128)
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    (block $featsDone (loop $feats
      (br_if $featsDone (i32.ge_u (local.get $i) (local.get $count)))
      (local.set $row (i32.mul (i32.load (i32.add (local.get $feat) (i32.shl (local.get $i) (i32.const 2)))) (local.get $rowBytes)))
      (local.set $d (i32.const 0))
      (block $dimsDone (loop $dims
        (br_if $dimsDone (i32.ge_u (local.get $d) (local.get $dim)))
        (local.set $dh (v128.load (i32.add (local.get $dh0) (i32.shl (local.get $d) (i32.const 3)))))
        ;; Lanes whose dh0 is 0 (or -0) keep their values, as the JavaScript skips them.
        (local.set $live (f64x2.ne (local.get $dh) (v128.const i64x2 0 0)))
        (local.set $at (i32.add (local.get $row) (i32.shl (local.get $d) (i32.const 2))))
        (local.set $grad (f64x2.mul (local.get $dh) (f64x2.splat (local.get $norm))))
        (local.set $g64 (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $g) (local.get $at)))))
        ;; g += grad * grad, stored as float32 and read back as the JavaScript's g[k] is
        (local.set $gNew (f64x2.promote_low_f32x4 (f32x4.demote_f64x2_zero
          (f64x2.add (local.get $g64) (f64x2.mul (local.get $grad) (local.get $grad))))))
        (local.set $gNew (v128.bitselect (local.get $gNew) (local.get $g64) (local.get $live)))
        (v128.store64_lane 0 (i32.add (local.get $g) (local.get $at)) (f32x4.demote_f64x2_zero (local.get $gNew)))
        ;; p -= (lr * grad) / sqrt(g + 1e-8)
        (local.set $p64 (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $emb) (local.get $at)))))
        (local.set $pNew (f64x2.sub (local.get $p64)
          (f64x2.div (f64x2.mul (f64x2.splat (local.get $lr)) (local.get $grad))
                     (f64x2.sqrt (f64x2.add (local.get $gNew) (f64x2.splat (f64.const 1e-8)))))))
        (local.set $pNew (v128.bitselect (local.get $pNew) (local.get $p64) (local.get $live)))
        (v128.store64_lane 0 (i32.add (local.get $emb) (local.get $at)) (f32x4.demote_f64x2_zero (local.get $pNew)))
        (local.set $d (i32.add (local.get $d) (i32.const 2)))
        (br $dims)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $feats)))))
