"""PyTorch: layer input sizes and channels, dtypes, loss shapes, view sizes, grad and numpy."""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

from .build import Case
from .data import PLOT_IMPORTS, TORCH_SETUP

_MLP = """X = torch.randn(64, 20)
y = (X[:, 0] > 0).long()
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))"""

_CNN = """images = torch.rand(8, 1, 28, 28)
conv = nn.Sequential(
    nn.Conv2d(3, 16, kernel_size=3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
)"""

CASES: list[Case] = [
    Case(
        "torch_01_linear_in_features",
        "torch",
        "torch-linear-shape",
        "RuntimeError",
        "The first Linear layer expects 20 features but the batch has 24 (four columns added).",
        [TORCH_SETUP, _MLP, """X_ext = torch.cat([X, X[:, :4] ** 2], dim=1)"""],
        """logits = model(X_ext)  #<
logits.argmax(dim=1)[:10]""",
        fixed_target="""logits = model(X_ext[:, :20])
logits.argmax(dim=1)[:10]""",
    ),
    Case(
        "torch_02_linear_after_flatten",
        "torch",
        "torch-linear-shape",
        "RuntimeError",
        "After two 2x2 poolings a 28x28 image is 7x7x16=784 values, not 16*5*5 as the head "
        "assumes.",
        [
            TORCH_SETUP,
            """class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))

net = Net()
batch = torch.rand(4, 1, 28, 28)""",
        ],
        """out = net(batch)  #<
out.shape""",
        fixed_cells=[
            TORCH_SETUP,
            """class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))

net = Net()
batch = torch.rand(4, 1, 28, 28)""",
        ],
    ),
    Case(
        "torch_03_conv_in_channels",
        "torch",
        "torch-conv-channels",
        "RuntimeError",
        "The first Conv2d expects 3 input channels but the grayscale batch has 1.",
        [TORCH_SETUP, _CNN],
        """features = conv(images)  #<
features.shape""",
        fixed_target="""features = conv(images.repeat(1, 3, 1, 1))
features.shape""",
    ),
    Case(
        "torch_04_conv_channels_last",
        "torch",
        "torch-conv-channels",
        "RuntimeError",
        "The images were converted from NumPy in (N, H, W, C) layout; Conv2d reads dimension 1 "
        "(32) as channels.",
        [
            TORCH_SETUP,
            """rng = np.random.default_rng(0)
batch_np = rng.random((4, 32, 32, 3), dtype=np.float32)
layer = nn.Conv2d(3, 8, kernel_size=5)""",
        ],
        """x = torch.from_numpy(batch_np)
out = layer(x)  #<
out.shape""",
        fixed_target="""x = torch.from_numpy(batch_np).permute(0, 3, 1, 2)
out = layer(x)
out.shape""",
    ),
    Case(
        "torch_05_float64_input",
        "torch",
        "torch-dtype",
        "RuntimeError",
        "torch.from_numpy keeps float64, but the Linear weights are float32.",
        [
            TORCH_SETUP,
            """features = np.random.default_rng(1).normal(size=(100, 20))
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))""",
        ],
        """inputs = torch.from_numpy(features)
with torch.no_grad():
    preds = model(inputs)  #<
preds.mean()""",
        fixed_target="""inputs = torch.from_numpy(features).float()
with torch.no_grad():
    preds = model(inputs)
preds.mean()""",
    ),
    Case(
        "torch_06_long_input_to_linear",
        "torch",
        "torch-dtype",
        "RuntimeError",
        "The one-hot tensor is int64 (Long); Linear needs floating point input.",
        [
            TORCH_SETUP,
            """tokens = torch.randint(0, 10, (16,))
onehot = nn.functional.one_hot(tokens, num_classes=10)
encoder = nn.Linear(10, 4)""",
        ],
        """emb = encoder(onehot)  #<
emb.shape""",
        fixed_target="""emb = encoder(onehot.float())
emb.shape""",
    ),
    Case(
        "torch_07_bce_long_target",
        "torch",
        "torch-dtype",
        "RuntimeError",
        "BCELoss needs float targets; the labels are int64.",
        [
            TORCH_SETUP,
            """X = torch.randn(32, 5)
labels = (X.sum(dim=1) > 0).long()
clf = nn.Sequential(nn.Linear(5, 1), nn.Sigmoid())
criterion = nn.BCELoss()""",
        ],
        """probs = clf(X).squeeze(1)
loss = criterion(probs, labels)  #<
loss.backward()""",
        fixed_target="""probs = clf(X).squeeze(1)
loss = criterion(probs, labels.float())
loss.backward()""",
    ),
    Case(
        "torch_08_bce_shape_mismatch",
        "torch",
        "torch-loss-shape",
        "ValueError",
        "The sigmoid head outputs (32, 1) while the targets have shape (32,).",
        [
            TORCH_SETUP,
            """X = torch.randn(32, 5)
labels = (X.sum(dim=1) > 0).float()
clf = nn.Sequential(nn.Linear(5, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(clf.parameters(), lr=0.1)""",
        ],
        """for epoch in range(3):
    optimizer.zero_grad()
    probs = clf(X)
    loss = criterion(probs, labels)  #<
    loss.backward()
    optimizer.step()""",
        fixed_target="""for epoch in range(3):
    optimizer.zero_grad()
    probs = clf(X).squeeze(1)
    loss = criterion(probs, labels)
    loss.backward()
    optimizer.step()""",
    ),
    Case(
        "torch_09_cross_entropy_column_target",
        "torch",
        "torch-loss-shape",
        "RuntimeError",
        "CrossEntropyLoss expects class indices of shape (N,); the labels are a (N, 1) column.",
        [
            TORCH_SETUP,
            _MLP,
            """targets = y.unsqueeze(1)
criterion = nn.CrossEntropyLoss()""",
        ],
        """logits = model(X)
loss = criterion(logits, targets)  #<
loss.item()""",
        fixed_target="""logits = model(X)
loss = criterion(logits, targets.squeeze(1))
loss.item()""",
    ),
    Case(
        "torch_10_nll_batch_mismatch",
        "torch",
        "torch-loss-shape",
        "ValueError",
        "The log-probabilities are for 64 samples but only the first 32 labels are passed.",
        [TORCH_SETUP, _MLP],
        """log_probs = torch.log_softmax(model(X), dim=1)
loss = nn.functional.nll_loss(log_probs, y[:32])  #<""",
        fixed_target="""log_probs = torch.log_softmax(model(X), dim=1)
loss = nn.functional.nll_loss(log_probs[:32], y[:32])""",
    ),
    Case(
        "torch_11_view_invalid_size",
        "torch",
        "torch-view-size",
        "RuntimeError",
        "The images are 1x28x28 = 784 values each, so view(-1, 28 * 28 * 3) cannot split the "
        "batch.",
        [TORCH_SETUP, """images = torch.rand(10, 1, 28, 28)"""],
        """flat = images.view(-1, 28 * 28 * 3)  #<
flat.shape""",
        fixed_target="""flat = images.view(-1, 28 * 28)
flat.shape""",
    ),
    Case(
        "torch_12_reshape_sequence_in_function",
        "torch",
        "torch-view-size",
        "RuntimeError",
        "A 100-step series cannot be cut into windows of 30 steps with reshape.",
        [TORCH_SETUP, """series = torch.sin(torch.linspace(0, 20, 100))"""],
        """def to_windows(x, width):
    return x.reshape(-1, width)  #<

windows = to_windows(series, 30)  #<call
windows.mean(dim=1)""",
        fixed_target="""def to_windows(x, width):
    return x.reshape(-1, width)

windows = to_windows(series, 25)
windows.mean(dim=1)""",
    ),
    Case(
        "torch_13_numpy_requires_grad",
        "torch",
        "torch-numpy-grad",
        "RuntimeError",
        "The model output requires grad, so .numpy() refuses to convert it.",
        [TORCH_SETUP, _MLP],
        """scores = model(X)[:, 1]
scores_np = scores.numpy()  #<
np.percentile(scores_np, [5, 50, 95])""",
        fixed_target="""scores = model(X)[:, 1]
scores_np = scores.detach().numpy()
np.percentile(scores_np, [5, 50, 95])""",
    ),
    Case(
        "torch_14_numpy_parameter",
        "torch",
        "torch-numpy-grad",
        "RuntimeError",
        "A layer's weight is a Parameter that requires grad.",
        [PLOT_IMPORTS.replace("import pandas as pd\n", ""), TORCH_SETUP, _MLP],
        """w = model[0].weight.numpy()  #<
plt.imshow(w, cmap="coolwarm")
plt.colorbar()""",
        fixed_target="""w = model[0].weight.detach().numpy()
plt.imshow(w, cmap="coolwarm")
plt.colorbar()""",
    ),
    Case(
        "torch_15_matmul_mismatch",
        "torch",
        "torch-matmul",
        "RuntimeError",
        "Q (8x16) @ K (8x16) needs K transposed for attention scores.",
        [
            TORCH_SETUP,
            """Q = torch.randn(8, 16)
K = torch.randn(8, 16)
V = torch.randn(8, 16)""",
        ],
        """scores = Q @ K / 16 ** 0.5  #<
attn = torch.softmax(scores, dim=-1) @ V
attn.shape""",
        fixed_target="""scores = Q @ K.T / 16 ** 0.5
attn = torch.softmax(scores, dim=-1) @ V
attn.shape""",
    ),
    Case(
        "torch_16_cat_size_mismatch",
        "torch",
        "torch-cat",
        "RuntimeError",
        "Concatenating along features needs equal batch sizes (64 vs 32).",
        [TORCH_SETUP, _MLP, """extra = torch.randn(32, 3)"""],
        """combined = torch.cat([X, extra], dim=1)  #<
combined.shape""",
        fixed_target="""combined = torch.cat([X[:32], extra], dim=1)
combined.shape""",
    ),
    Case(
        "torch_17_embedding_index_out_of_range",
        "torch",
        "torch-index",
        "IndexError",
        "The vocabulary has 1000 ids but the embedding table has 999 rows (off by one).",
        [
            TORCH_SETUP,
            """vocab_size = 1000
token_ids = torch.arange(vocab_size).reshape(10, 100)
embedding = nn.Embedding(vocab_size - 1, 16)""",
        ],
        """vectors = embedding(token_ids)  #<
vectors.mean(dim=1).shape""",
        fixed_cells=[
            TORCH_SETUP,
            """vocab_size = 1000
token_ids = torch.arange(vocab_size).reshape(10, 100)
embedding = nn.Embedding(vocab_size, 16)""",
        ],
    ),
    Case(
        "torch_18_conv_2d_input",
        "torch",
        "torch-conv-channels",
        "RuntimeError",
        "A single 28x28 image without batch and channel dimensions is 2-D; Conv2d needs 3-D "
        "or 4-D input.",
        [
            TORCH_SETUP,
            """layer = nn.Conv2d(1, 4, kernel_size=3)
image = torch.rand(28, 28)""",
        ],
        """fmap = layer(image)  #<
fmap.shape""",
        fixed_target="""fmap = layer(image.unsqueeze(0))
fmap.shape""",
    ),
    Case(
        "torch_19_train_step_float64_batch",
        "torch",
        "torch-dtype",
        "RuntimeError",
        "The batches come from a float64 NumPy array, while the model's weights are float32; "
        "the error is raised inside train_step, called from the loop.",
        [
            TORCH_SETUP,
            """rng = np.random.default_rng(4)
features = rng.normal(size=(96, 8))
targets = (features[:, 0] > 0).astype(np.int64)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()""",
        ],
        """def train_step(batch_x, batch_y):
    optimizer.zero_grad()
    loss = loss_fn(model(batch_x), batch_y)  #<
    loss.backward()
    optimizer.step()
    return loss.item()

losses = []
for start in range(0, len(features), 32):
    xb = torch.tensor(features[start:start + 32])
    yb = torch.tensor(targets[start:start + 32])
    losses.append(train_step(xb, yb))  #<call
losses""",
        fixed_target="""def train_step(batch_x, batch_y):
    optimizer.zero_grad()
    loss = loss_fn(model(batch_x), batch_y)
    loss.backward()
    optimizer.step()
    return loss.item()

losses = []
for start in range(0, len(features), 32):
    xb = torch.tensor(features[start:start + 32], dtype=torch.float32)
    yb = torch.tensor(targets[start:start + 32])
    losses.append(train_step(xb, yb))
losses""",
    ),
]
