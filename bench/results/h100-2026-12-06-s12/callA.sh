set -u
tar xJf .devz/dev.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps; . tools/device_env.sh
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
git log --oneline -1 2>/dev/null
timeout 200 ./build/tests/test_memory_accounting . --cuda 2>&1 | tail -8
