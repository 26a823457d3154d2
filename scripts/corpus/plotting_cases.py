"""matplotlib and seaborn: image shapes, axes indexing, call signatures, data lengths."""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

from .build import Case
from .data import HOUSES, HOUSES_SPLIT, PLOT_IMPORTS, SALES, SENSORS, TITANIC

_PLOT_IMAGES = """rng = np.random.default_rng(2)
batch = rng.random((16, 3, 32, 32))
classes = ["cat", "dog", "ship", "car"]
targets = rng.integers(0, 4, 16)"""

CASES: list[Case] = [
    Case(
        "matplotlib_01_imshow_channels_first",
        "matplotlib",
        "plot-image-shape",
        "TypeError",
        "The images are channel-first (3, 32, 32); imshow needs (32, 32, 3).",
        [PLOT_IMPORTS, _PLOT_IMAGES],
        """fig, axes = plt.subplots(1, 4, figsize=(8, 2))
for i, ax in enumerate(axes):
    ax.imshow(batch[i])  #<
    ax.set_title(classes[targets[i]])
    ax.axis("off")""",
        fixed_target="""fig, axes = plt.subplots(1, 4, figsize=(8, 2))
for i, ax in enumerate(axes):
    ax.imshow(batch[i].transpose(1, 2, 0))
    ax.set_title(classes[targets[i]])
    ax.axis("off")""",
    ),
    Case(
        "matplotlib_02_imshow_scalar",
        "matplotlib",
        "plot-image-shape",
        "TypeError",
        "targets[0] is a single label, not an image.",
        [PLOT_IMPORTS, _PLOT_IMAGES],
        """plt.imshow(targets[0])  #<
plt.title("first sample")""",
        fixed_target="""plt.imshow(batch[0].transpose(1, 2, 0))
plt.title("first sample")""",
    ),
    Case(
        "matplotlib_03_imshow_flat_vector",
        "matplotlib",
        "plot-image-shape",
        "TypeError",
        "A flattened 3072-value vector is 1-D; imshow needs a 2-D or 3-D array.",
        [PLOT_IMPORTS, _PLOT_IMAGES, """flat = batch.reshape(len(batch), -1)"""],
        """plt.figure(figsize=(3, 3))
plt.imshow(flat[5], cmap="gray")  #<""",
        fixed_target="""plt.figure(figsize=(3, 3))
plt.imshow(flat[5].reshape(3, 32, 32)[0], cmap="gray")""",
    ),
    Case(
        "matplotlib_04_axes_index_out_of_bounds",
        "matplotlib",
        "plot-axes-index",
        "IndexError",
        "Five numeric columns are plotted into a 2x2 grid of four axes.",
        [PLOT_IMPORTS, HOUSES],
        """cols = ["sqft", "bedrooms", "age", "distance_km", "price"]
fig, axes = plt.subplots(2, 2, figsize=(8, 6))
axes = axes.flatten()
for i, col in enumerate(cols):
    axes[i].hist(houses[col], bins=20)  #<
    axes[i].set_title(col)
fig.tight_layout()""",
        fixed_target="""cols = ["sqft", "bedrooms", "age", "distance_km", "price"]
fig, axes = plt.subplots(2, 3, figsize=(8, 6))
axes = axes.flatten()
for i, col in enumerate(cols):
    axes[i].hist(houses[col], bins=20)
    axes[i].set_title(col)
fig.tight_layout()""",
    ),
    Case(
        "matplotlib_05_single_axes_not_subscriptable",
        "matplotlib",
        "plot-axes-index",
        "TypeError",
        "plt.subplots() with no grid returns a single Axes, which cannot be indexed.",
        [PLOT_IMPORTS, SALES],
        """fig, ax = plt.subplots(figsize=(6, 4))
ax[0].bar(sales["region"].unique(), sales.groupby("region")["units"].sum())  #<""",
        fixed_target="""fig, ax = plt.subplots(1, 2, figsize=(6, 4))
ax[0].bar(sales["region"].unique(), sales.groupby("region")["units"].sum())""",
    ),
    Case(
        "matplotlib_06_row_of_axes_has_no_plot",
        "matplotlib",
        "python-missing-attribute",
        "AttributeError",
        "With a 2x2 grid, axes[0] is a row (an ndarray) of two Axes, not an Axes.",
        [PLOT_IMPORTS, SENSORS],
        """fig, axes = plt.subplots(2, 2, figsize=(8, 6))
axes[0].plot(readings[:, 0])  #<
axes[1].plot(readings[:, 1])""",
        fixed_target="""fig, axes = plt.subplots(2, 2, figsize=(8, 6))
axes[0, 0].plot(readings[:, 0])
axes[1, 0].plot(readings[:, 1])""",
    ),
    Case(
        "matplotlib_07_bar_length_mismatch",
        "matplotlib",
        "plot-data-length",
        "ValueError",
        "There are 4 region names but 3 heights (the product totals were used).",
        [PLOT_IMPORTS, SALES],
        """regions = sorted(sales["region"].unique())
totals = sales.groupby("product")["revenue"].sum()
plt.bar(regions, totals)  #<
plt.ylabel("revenue")""",
        fixed_target="""regions = sorted(sales["region"].unique())
totals = sales.groupby("region")["revenue"].sum()
plt.bar(regions, totals)
plt.ylabel("revenue")""",
    ),
    Case(
        "matplotlib_08_plot_x_y_mismatch",
        "matplotlib",
        "plot-data-length",
        "ValueError",
        "x has 500 points and the smoothed series has 491 (mode='valid').",
        [PLOT_IMPORTS, SENSORS],
        """smooth = np.convolve(readings[:, 0], np.ones(10) / 10, mode="valid")
plt.plot(t, readings[:, 0], alpha=0.3)
plt.plot(t, smooth)  #<""",
        fixed_target="""smooth = np.convolve(readings[:, 0], np.ones(10) / 10, mode="same")
plt.plot(t, readings[:, 0], alpha=0.3)
plt.plot(t, smooth)""",
    ),
    Case(
        "matplotlib_09_scatter_size_mismatch",
        "matplotlib",
        "plot-data-length",
        "ValueError",
        "x comes from the whole frame (300 rows) and y from the test split (60 rows).",
        [PLOT_IMPORTS, HOUSES, HOUSES_SPLIT],
        """plt.scatter(houses["sqft"], y_test, s=8)  #<
plt.xlabel("sqft")""",
        fixed_target="""plt.scatter(X_test["sqft"], y_test, s=8)
plt.xlabel("sqft")""",
    ),
    Case(
        "matplotlib_10_subplot_index_too_large",
        "matplotlib",
        "plot-axes-index",
        "ValueError",
        "A 2x2 grid has subplot numbers 1 to 4; the loop asks for 5.",
        [PLOT_IMPORTS, HOUSES],
        """plt.figure(figsize=(8, 6))
for i, col in enumerate(["sqft", "bedrooms", "age", "distance_km", "price"], start=1):
    plt.subplot(2, 2, i)  #<
    plt.hist(houses[col], bins=15)
    plt.title(col)""",
        fixed_target="""plt.figure(figsize=(8, 6))
for i, col in enumerate(["sqft", "bedrooms", "age", "distance_km", "price"], start=1):
    plt.subplot(2, 3, i)
    plt.hist(houses[col], bins=15)
    plt.title(col)""",
    ),
    Case(
        "seaborn_01_barplot_positional",
        "seaborn",
        "plot-call-signature",
        "TypeError",
        "sns.barplot accepts data as its only positional argument; x and y must be keywords.",
        [PLOT_IMPORTS, SALES],
        """sns.barplot("region", "revenue", data=sales)  #<
plt.title("Revenue by region")""",
        fixed_target="""sns.barplot(x="region", y="revenue", data=sales)
plt.title("Revenue by region")""",
    ),
    Case(
        "seaborn_02_scatterplot_positional",
        "seaborn",
        "plot-call-signature",
        "TypeError",
        "scatterplot takes at most one positional argument (data).",
        [PLOT_IMPORTS, HOUSES],
        """fig, ax = plt.subplots(figsize=(6, 4))
sns.scatterplot(houses["sqft"], houses["price"], hue=houses["neighborhood"], ax=ax)  #<
ax.set_title("Price vs size")""",
        fixed_target="""fig, ax = plt.subplots(figsize=(6, 4))
sns.scatterplot(x=houses["sqft"], y=houses["price"], hue=houses["neighborhood"], ax=ax)
ax.set_title("Price vs size")""",
    ),
    Case(
        "seaborn_03_countplot_column_then_frame",
        "seaborn",
        "plot-call-signature",
        "TypeError",
        "countplot(data=None, *, x=...): the column name and the frame are both positional.",
        [PLOT_IMPORTS, TITANIC],
        """for col in ["Pclass", "Embarked"]:
    plt.figure(figsize=(4, 3))
    sns.countplot(col, titanic, hue="Survived")  #<
    plt.title(col)""",
        fixed_target="""for col in ["Pclass", "Embarked"]:
    plt.figure(figsize=(4, 3))
    sns.countplot(x=col, data=titanic, hue="Survived")
    plt.title(col)""",
    ),
    Case(
        "seaborn_04_lineplot_positional",
        "seaborn",
        "plot-call-signature",
        "TypeError",
        "lineplot's x and y are keyword-only.",
        [PLOT_IMPORTS, SALES],
        """daily = sales.groupby("order_date", as_index=False)["revenue"].sum()
sns.lineplot(daily, "order_date", "revenue")  #<""",
        fixed_target="""daily = sales.groupby("order_date", as_index=False)["revenue"].sum()
sns.lineplot(daily, x="order_date", y="revenue")""",
    ),
    Case(
        "seaborn_05_heatmap_unknown_kwarg",
        "seaborn",
        "plot-call-signature",
        "AttributeError",
        "heatmap forwards unknown keywords to matplotlib's pcolormesh, which has no "
        "property 'colour_map'.",
        [PLOT_IMPORTS, HOUSES],
        """corr = houses.select_dtypes("number").corr()
sns.heatmap(corr, annot=True, fmt=".2f", colour_map="coolwarm")  #<""",
        fixed_target="""corr = houses.select_dtypes("number").corr()
sns.heatmap(corr, annot=True, fmt=".2f", cmap="coolwarm")""",
    ),
    Case(
        "seaborn_06_histplot_missing_column",
        "seaborn",
        "pandas-missing-column",
        "ValueError",
        "x='fare' is not a column of titanic (it is Fare); seaborn raises a ValueError.",
        [PLOT_IMPORTS, TITANIC],
        """sns.histplot(data=titanic, x="fare", hue="Pclass", bins=30)  #<""",
        fixed_target="""sns.histplot(data=titanic, x="Fare", hue="Pclass", bins=30)""",
    ),
]
