"""jax_mlp.py -- bench/truth: a JAX/XLA program (jit-compiled MLP, 3 layers of 2048, batch 4096, plain SGD),
2 warm-up steps then 20 training steps; XLA's fused kernels and cuBLAS GEMMs. Prints the losses a run under
memheat must reproduce."""
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import jax
import jax.numpy as jnp

k = jax.random.PRNGKey(0)
ks = jax.random.split(k, 5)
params = [(jax.random.normal(ks[i], (2048, 2048)) * 0.02, jnp.zeros(2048)) for i in range(3)]
x = jax.random.normal(ks[3], (4096, 2048))
y = jax.random.normal(ks[4], (4096, 2048))


def loss_fn(p, x, y):
    h = x
    for w, b in p[:-1]:
        h = jax.nn.gelu(h @ w + b)
    w, b = p[-1]
    return jnp.mean((h @ w + b - y) ** 2)


@jax.jit
def step(p, x, y):
    l, gr = jax.value_and_grad(loss_fn)(p, x, y)
    return [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(p, gr)], l


losses = []
for i in range(22):
    params, l = step(params, x, y)
    if i >= 2:
        losses.append(float(l))
print("losses " + " ".join("%.9g" % v for v in losses))
