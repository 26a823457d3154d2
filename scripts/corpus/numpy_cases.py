"""NumPy: broadcasting, matmul/dot, reshape, concatenate/stack, axis and index bounds."""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

from .build import Case
from .data import IMPORTS, SENSORS

_IMAGES = """rng = np.random.default_rng(5)
images = rng.integers(0, 256, size=(64, 28, 28)).astype(np.float32)
labels = rng.integers(0, 10, size=64)
flat = images.reshape(len(images), -1)
flat.shape"""

CASES: list[Case] = [
    Case(
        "numpy_01_broadcast_row_means",
        "numpy",
        "numpy-broadcast",
        "ValueError",
        "readings.mean(axis=1) has shape (500,), which cannot broadcast against (500, 3) "
        "from the right.",
        [IMPORTS, SENSORS],
        """centered = readings - readings.mean(axis=1)  #<
centered.std(axis=0)""",
        fixed_target="""centered = readings - readings.mean(axis=1, keepdims=True)
centered.std(axis=0)""",
    ),
    Case(
        "numpy_02_matmul_wrong_weights",
        "numpy",
        "numpy-matmul",
        "ValueError",
        "X has 3 columns but the weight vector has 4 entries.",
        [
            IMPORTS,
            SENSORS,
            """weights = np.array([0.5, -0.2, 1.0, 0.1])
bias = 0.3""",
        ],
        """scores = readings @ weights + bias  #<
probs = 1 / (1 + np.exp(-scores))
probs[:5]""",
        fixed_target="""scores = readings @ weights[:3] + bias
probs = 1 / (1 + np.exp(-scores))
probs[:5]""",
    ),
    Case(
        "numpy_03_dot_not_aligned",
        "numpy",
        "numpy-matmul",
        "ValueError",
        "np.dot(W, x) needs W's 10 columns to match x's 784 entries; W should be transposed.",
        [IMPORTS, _IMAGES, """W = np.random.default_rng(0).normal(0, 0.01, size=(784, 10))"""],
        """logits = np.dot(W, flat[0])  #<
np.argmax(logits)""",
        fixed_target="""logits = np.dot(W.T, flat[0])
np.argmax(logits)""",
    ),
    Case(
        "numpy_04_reshape_incompatible",
        "numpy",
        "numpy-reshape",
        "ValueError",
        "A 28x28 image has 784 pixels; it cannot be reshaped to 32x32.",
        [IMPORTS, _IMAGES],
        """sample = flat[10].reshape(32, 32)  #<
sample.mean()""",
        fixed_target="""sample = flat[10].reshape(28, 28)
sample.mean()""",
    ),
    Case(
        "numpy_05_reshape_in_loop",
        "numpy",
        "numpy-reshape",
        "ValueError",
        "Batches of 10 leave a last batch of 4 images, which cannot be reshaped to (10, 784).",
        [IMPORTS, _IMAGES],
        """batch_size = 10
means = []
for start in range(0, len(images), batch_size):
    batch = images[start:start + batch_size]
    batch = batch.reshape(batch_size, 784)  #<
    means.append(batch.mean(axis=1))
np.concatenate(means).shape""",
        fixed_target="""batch_size = 10
means = []
for start in range(0, len(images), batch_size):
    batch = images[start:start + batch_size]
    batch = batch.reshape(len(batch), 784)
    means.append(batch.mean(axis=1))
np.concatenate(means).shape""",
    ),
    Case(
        "numpy_06_concatenate_columns_mismatch",
        "numpy",
        "numpy-concatenate",
        "ValueError",
        "Stacking rows needs equal column counts: readings has 3 columns, extra has 2.",
        [IMPORTS, SENSORS, """extra = np.random.default_rng(9).normal(size=(100, 2))"""],
        """augmented = np.concatenate([readings, extra], axis=0)  #<
augmented.shape""",
        fixed_target="""augmented = np.concatenate([readings[:, :2], extra], axis=0)
augmented.shape""",
    ),
    Case(
        "numpy_07_hstack_row_mismatch",
        "numpy",
        "numpy-concatenate",
        "ValueError",
        "hstack joins columns, so the row counts (500 and 499) must match; np.diff drops a row.",
        [IMPORTS, SENSORS],
        """velocity = np.diff(readings, axis=0)
features = np.hstack([readings, velocity])  #<
features.shape""",
        fixed_target="""velocity = np.diff(readings, axis=0, prepend=readings[:1])
features = np.hstack([readings, velocity])
features.shape""",
    ),
    Case(
        "numpy_08_vstack_width_mismatch",
        "numpy",
        "numpy-concatenate",
        "ValueError",
        "The header row has 4 entries but the data rows have 3 columns.",
        [IMPORTS, SENSORS],
        """header = np.array([[0.0, 1.0, 2.0, 3.0]])
table = np.vstack([header, readings[:10]])  #<
table.shape""",
        fixed_target="""header = np.array([[0.0, 1.0, 2.0]])
table = np.vstack([header, readings[:10]])
table.shape""",
    ),
    Case(
        "numpy_09_argmax_axis_on_1d",
        "numpy",
        "numpy-axis",
        "AxisError",
        "labels is already 1-D class indices; argmax(axis=1) is out of bounds.",
        [IMPORTS, _IMAGES],
        """true_classes = np.argmax(labels, axis=1)  #<
np.bincount(true_classes)""",
        fixed_target="""true_classes = labels
np.bincount(true_classes)""",
    ),
    Case(
        "numpy_10_sum_axis_2_on_2d",
        "numpy",
        "numpy-axis",
        "AxisError",
        "flat is 2-D; summing over axis 2 is out of bounds.",
        [IMPORTS, _IMAGES],
        """brightness = flat.sum(axis=2) / 255  #<
brightness.shape""",
        fixed_target="""brightness = images.sum(axis=2) / 255
brightness.shape""",
    ),
    Case(
        "numpy_11_index_out_of_bounds_column",
        "numpy",
        "numpy-index",
        "IndexError",
        "readings has 3 columns (0..2); column 3 does not exist.",
        [IMPORTS, SENSORS],
        """names = ["sin", "cos", "trend"]
for j, name in enumerate(names):
    col = readings[:, j]
    print(name, round(col.min(), 2), round(col.max(), 2))
ratio = readings[:, 0] / readings[:, 3]  #<""",
        fixed_target="""names = ["sin", "cos", "trend"]
for j, name in enumerate(names):
    col = readings[:, j]
    print(name, round(col.min(), 2), round(col.max(), 2))
ratio = readings[:, 0] / readings[:, 2]""",
    ),
    Case(
        "numpy_12_index_out_of_bounds_row",
        "numpy",
        "numpy-index",
        "IndexError",
        "There are 64 images; index 64 is one past the end.",
        [IMPORTS, _IMAGES],
        """last = images[64]  #<
last.shape""",
        fixed_target="""last = images[63]
last.shape""",
    ),
    Case(
        "numpy_13_savetxt_3d",
        "numpy",
        "numpy-ndim",
        "ValueError",
        "np.savetxt writes 1-D or 2-D arrays; images is 3-D.",
        [IMPORTS, _IMAGES],
        """np.savetxt("images.csv", images[:5], delimiter=",", fmt="%d")  #<""",
        fixed_target="""np.savetxt("images.csv", flat[:5], delimiter=",", fmt="%d")""",
    ),
    Case(
        "numpy_14_inv_non_square",
        "numpy",
        "numpy-linalg",
        "LinAlgError",
        "The normal equations need X.T @ X; X itself (500x4) is not square.",
        [IMPORTS, SENSORS],
        """X = np.column_stack([np.ones(len(readings)), readings[:, :2], readings[:, 2] ** 2])
y = readings[:, 2]
beta = np.linalg.inv(X) @ X.T @ y  #<
beta""",
        fixed_target="""X = np.column_stack([np.ones(len(readings)), readings[:, :2], readings[:, 2] ** 2])
y = readings[:, 2]
beta = np.linalg.inv(X.T @ X) @ X.T @ y
beta""",
    ),
    Case(
        "numpy_15_inplace_broadcast",
        "numpy",
        "numpy-broadcast",
        "ValueError",
        "The per-image means have shape (64,), which cannot be subtracted in place from (64, 784).",
        [IMPORTS, _IMAGES],
        """flat -= flat.mean(axis=1)  #<
flat.mean()""",
        fixed_target="""flat -= flat.mean(axis=1)[:, None]
flat.mean()""",
    ),
    Case(
        "numpy_16_stack_different_shapes",
        "numpy",
        "numpy-concatenate",
        "ValueError",
        "np.stack needs arrays of one shape; the last crop is 20x28 instead of 28x28.",
        [IMPORTS, _IMAGES],
        """crops = [images[i] for i in range(3)] + [images[3][:20]]
batch = np.stack(crops)  #<
batch.shape""",
        fixed_target="""crops = [images[i] for i in range(3)] + [images[3]]
batch = np.stack(crops)
batch.shape""",
    ),
    Case(
        "numpy_17_ragged_array",
        "numpy",
        "numpy-ragged",
        "ValueError",
        "The sequences have different lengths, so np.array cannot build a 2-D float array.",
        [
            IMPORTS,
            """sequences = [[1.0, 2.0, 3.0], [4.0, 5.0], [6.0, 7.0, 8.0, 9.0]]""",
        ],
        """matrix = np.array(sequences, dtype=float)  #<
matrix.mean(axis=1)""",
        fixed_target="""width = max(len(s) for s in sequences)
matrix = np.array([s + [np.nan] * (width - len(s)) for s in sequences], dtype=float)
np.nanmean(matrix, axis=1)""",
    ),
    Case(
        "numpy_18_broadcast_feature_scaling",
        "numpy",
        "numpy-broadcast",
        "ValueError",
        "The scale vector has 4 entries for 3 feature columns.",
        [IMPORTS, SENSORS, """scale = np.array([1.0, 1.0, 5.0, 10.0])"""],
        """def normalise(block):
    return (block - block.min(axis=0)) / scale  #<

normalised = normalise(readings)  #<call
normalised.max(axis=0)""",
        fixed_cells=[IMPORTS, SENSORS, """scale = np.array([1.0, 1.0, 5.0])"""],
    ),
]
