#!/usr/bin/env bash
# Compile-time cost of #[grad]: for functions of N straight-line statements,
# the time `cargo build` takes for a crate with the function and #[grad], less
# the time without the attribute, and the size of the generated code.
# Usage: bash benches/compile-time.sh [N ...]   (default: 100 1000 5000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sizes=("${@:-100 1000 5000}")
[ $# -gt 0 ] || sizes=(100 1000 5000)
printf '%8s  %14s  %14s  %12s  %16s\n' statements "with #[grad] s" "without s" "added s" "generated lines"
for n in "${sizes[@]}"; do
  for variant in with without; do
    dir="$work/$variant-$n"
    mkdir -p "$dir/src"
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "ct"
version = "0.1.0"
edition = "2021"
[dependencies]
autodiff = { path = "$root" }
[workspace]
TOML
    {
      echo "#![allow(unused_assignments, clippy::all)]"
      [ "$variant" = with ] && echo "#[autodiff::grad]"
      echo "pub fn f(x: f64, y: f64) -> f64 {"
      echo "    let mut a = x;"
      echo "    let mut b = y;"
      for ((i = 0; i < n; i++)); do
        case $((i % 4)) in
          0) echo "    a = a * b + 0.5;" ;;
          1) echo "    b = b - a.sin();" ;;
          2) echo "    a = (a * 0.9).tanh() + b;" ;;
          3) echo "    b = b / (1.0 + a * a);" ;;
        esac
      done
      echo "    a + b"
      echo "}"
    } > "$dir/src/lib.rs"
    # Build the dependencies first, so that only the crate itself is timed.
    (cd "$dir" && cargo build -q 2>/dev/null || true)
    touch "$dir/src/lib.rs"
    start=$(date +%s.%N)
    (cd "$dir" && cargo build -q)
    end=$(date +%s.%N)
    eval "t_$variant=$(echo "$end - $start" | bc)"
  done
  # The size of the expansion, with cargo-expand if it is installed.
  if command -v cargo-expand >/dev/null; then
    lines=$(cd "$work/with-$n" && cargo expand --lib 2>/dev/null | wc -l)
  else
    lines="(cargo-expand not installed)"
  fi
  printf '%8s  %14.2f  %14.2f  %12.2f  %16s\n' "$n" "$t_with" "$t_without" "$(echo "$t_with - $t_without" | bc)" "$lines"
done
