;; The embedding bag's row sums with 128-bit SIMD (built into row-sums.wasm by
;; `npm run build:wasm`; wasm-row-table.ts loads it). JavaScript has no vector instructions:
;; its best (createRowSummer's packed form) adds four int8 values per 32-bit word; here one
;; instruction adds eight int16 lanes.
;;
;; sumRows(feat, count, stride, offset, rowBytes, acc): for d in [0, rowBytes),
;;   int32 at acc + 4d = sum over i < count of the int8 at offset + u32(feat + 4i) * stride + d.
;; rowBytes must be a multiple of 32. Integer arithmetic throughout: the sums equal the plain
;; byte-by-byte loop's exactly.
(module
  (import "env" "memory" (memory 1))
  (func (export "sumRows")
    (param $feat i32) (param $count i32) (param $stride i32) (param $offset i32) (param $rowBytes i32) (param $acc i32)
    (local $chunk i32) (local $from i32) (local $to i32) (local $i i32) (local $addr i32) (local $out i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $v v128) (local $w v128)
    ;; acc = 0
    (local.set $out (local.get $acc))
    (local.set $to (i32.add (local.get $acc) (i32.shl (local.get $rowBytes) (i32.const 2))))
    (block $zeroed (loop $zero
      (br_if $zeroed (i32.ge_u (local.get $out) (local.get $to)))
      (v128.store (local.get $out) (v128.const i64x2 0 0))
      (local.set $out (i32.add (local.get $out) (i32.const 16)))
      (br $zero)))
    ;; 32 bytes of every row at a time: four int16x8 sums stay in registers.
    (block $chunksDone (loop $chunks
      (br_if $chunksDone (i32.ge_u (local.get $chunk) (local.get $rowBytes)))
      (local.set $from (i32.const 0))
      (block $blocksDone (loop $blocks
        (br_if $blocksDone (i32.ge_u (local.get $from) (local.get $count)))
        ;; At most 256 rows per int16 lane: every partial sum of 256 values in [-128, 127] lies
        ;; in [-32768, 32512], inside int16.
        (local.set $to (i32.add (local.get $from) (i32.const 256)))
        (if (i32.gt_u (local.get $to) (local.get $count)) (then (local.set $to (local.get $count))))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $i (local.get $from))
        (block $rowsDone (loop $rows
          (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $to)))
          (local.set $addr (i32.add
            (i32.mul (i32.load (i32.add (local.get $feat) (i32.shl (local.get $i) (i32.const 2)))) (local.get $stride))
            (i32.add (local.get $offset) (local.get $chunk))))
          (local.set $v (v128.load (local.get $addr)))
          (local.set $w (v128.load offset=16 (local.get $addr)))
          (local.set $a0 (i16x8.add (local.get $a0) (i16x8.extend_low_i8x16_s (local.get $v))))
          (local.set $a1 (i16x8.add (local.get $a1) (i16x8.extend_high_i8x16_s (local.get $v))))
          (local.set $a2 (i16x8.add (local.get $a2) (i16x8.extend_low_i8x16_s (local.get $w))))
          (local.set $a3 (i16x8.add (local.get $a3) (i16x8.extend_high_i8x16_s (local.get $w))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $rows)))
        ;; Widen the block's int16 sums and add them to the int32 sums of bytes [chunk, chunk + 32).
        (local.set $out (i32.add (local.get $acc) (i32.shl (local.get $chunk) (i32.const 2))))
        (v128.store offset=0 (local.get $out) (i32x4.add (v128.load offset=0 (local.get $out)) (i32x4.extend_low_i16x8_s (local.get $a0))))
        (v128.store offset=16 (local.get $out) (i32x4.add (v128.load offset=16 (local.get $out)) (i32x4.extend_high_i16x8_s (local.get $a0))))
        (v128.store offset=32 (local.get $out) (i32x4.add (v128.load offset=32 (local.get $out)) (i32x4.extend_low_i16x8_s (local.get $a1))))
        (v128.store offset=48 (local.get $out) (i32x4.add (v128.load offset=48 (local.get $out)) (i32x4.extend_high_i16x8_s (local.get $a1))))
        (v128.store offset=64 (local.get $out) (i32x4.add (v128.load offset=64 (local.get $out)) (i32x4.extend_low_i16x8_s (local.get $a2))))
        (v128.store offset=80 (local.get $out) (i32x4.add (v128.load offset=80 (local.get $out)) (i32x4.extend_high_i16x8_s (local.get $a2))))
        (v128.store offset=96 (local.get $out) (i32x4.add (v128.load offset=96 (local.get $out)) (i32x4.extend_low_i16x8_s (local.get $a3))))
        (v128.store offset=112 (local.get $out) (i32x4.add (v128.load offset=112 (local.get $out)) (i32x4.extend_high_i16x8_s (local.get $a3))))
        (local.set $from (local.get $to))
        (br $blocks)))
      (local.set $chunk (i32.add (local.get $chunk) (i32.const 32)))
      (br $chunks)))))
