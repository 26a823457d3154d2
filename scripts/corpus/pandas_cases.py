"""pandas: missing columns and labels, accessors on the wrong dtype, casts, merge/join/concat."""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

from .build import Case
from .data import CUSTOMERS_CSV, HOUSES, IMPORTS, SALES, TITANIC

CASES: list[Case] = [
    Case(
        "pandas_01_getitem_wrong_case",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The column is revenue (lower case); Revenue does not exist.",
        [IMPORTS, SALES],
        """top_regions = (
    sales.groupby("region")["revenue"].sum().sort_values(ascending=False).head(3).index
)
share = sales["Revenue"] / sales["Revenue"].sum()  #<
share.head()""",
        fixed_target="""top_regions = (
    sales.groupby("region")["revenue"].sum().sort_values(ascending=False).head(3).index
)
share = sales["revenue"] / sales["revenue"].sum()
share.head()""",
    ),
    Case(
        "pandas_02_column_list_with_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The feature list names bathrooms, which the frame does not have.",
        [IMPORTS, HOUSES],
        """features = ["sqft", "bedrooms", "bathrooms", "age"]
X = houses[features]  #<
y = houses["price"]""",
        fixed_target="""features = ["sqft", "bedrooms", "distance_km", "age"]
X = houses[features]
y = houses["price"]""",
    ),
    Case(
        "pandas_03_attribute_access_missing_column",
        "pandas",
        "pandas-missing-column",
        "AttributeError",
        "The frame has no column fare (it is Fare), so titanic.fare is not an attribute.",
        [IMPORTS, TITANIC],
        """print("median fare:", titanic.Fare.median())
titanic["fare_per_person"] = titanic.fare / (titanic.SibSp + 1)  #<""",
        fixed_target="""print("median fare:", titanic.Fare.median())
titanic["fare_per_person"] = titanic.Fare / (titanic.SibSp + 1)""",
    ),
    Case(
        "pandas_04_drop_columns_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "drop(columns=...) lists Cabin, which this frame never had.",
        [IMPORTS, TITANIC],
        """titanic = titanic.drop(columns=["PassengerId", "Cabin"])  #<
titanic.shape""",
        fixed_target="""titanic = titanic.drop(columns=["PassengerId", "Cabin"], errors="ignore")
titanic.shape""",
    ),
    Case(
        "pandas_05_drop_axis1_in_loop",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The loop drops each column named in to_drop; 'Ticket' is not in the frame.",
        [IMPORTS, TITANIC],
        """to_drop = ["PassengerId", "Ticket"]
for col in to_drop:
    print("dropping", col)
    titanic = titanic.drop([col], axis=1)  #<
titanic.columns""",
        fixed_target="""to_drop = ["PassengerId", "Ticket"]
for col in to_drop:
    print("dropping", col)
    if col in titanic.columns:
        titanic = titanic.drop([col], axis=1)
titanic.columns""",
    ),
    Case(
        "pandas_06_loc_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "loc[:, 'price_per_sqft'] reads a column that was never created.",
        [IMPORTS, HOUSES],
        """expensive = houses.loc[houses["price"] > houses["price"].quantile(0.9)]
expensive.loc[:, "price_per_sqft"].describe()  #<""",
        fixed_target="""expensive = houses.loc[houses["price"] > houses["price"].quantile(0.9)]
(expensive.loc[:, "price"] / expensive.loc[:, "sqft"]).describe()""",
    ),
    Case(
        "pandas_07_groupby_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "There is no category column to group by (the column is product).",
        [IMPORTS, SALES],
        """summary = (
    sales.groupby(["region", "category"])  #<
    .agg(orders=("order_id", "count"), revenue=("revenue", "sum"))
    .reset_index()
)""",
        fixed_target="""summary = (
    sales.groupby(["region", "product"])
    .agg(orders=("order_id", "count"), revenue=("revenue", "sum"))
    .reset_index()
)""",
    ),
    Case(
        "pandas_08_sort_values_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "sort_values by total_revenue: the column is called revenue.",
        [IMPORTS, SALES],
        """sales.sort_values("total_revenue", ascending=False).head(10)  #<""",
        fixed_target="""sales.sort_values("revenue", ascending=False).head(10)""",
    ),
    Case(
        "pandas_09_merge_missing_key",
        "pandas",
        "pandas-merge-key",
        "KeyError",
        "The targets table keys on region_name, not region, so merge on='region' fails.",
        [
            IMPORTS,
            SALES,
            """targets = pd.DataFrame({
    "region_name": ["north", "south", "east", "west"],
    "target": [50_000, 42_000, 61_000, 38_000],
})""",
        ],
        """by_region = sales.groupby("region", as_index=False)["revenue"].sum()
report = by_region.merge(targets, on="region", how="left")  #<
report["attainment"] = report["revenue"] / report["target"]""",
        fixed_target="""by_region = sales.groupby("region", as_index=False)["revenue"].sum()
report = by_region.merge(targets, left_on="region", right_on="region_name", how="left")
report["attainment"] = report["revenue"] / report["target"]""",
    ),
    Case(
        "pandas_10_set_index_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The id column of the CSV is customer_id; set_index('id') cannot find it.",
        [IMPORTS, """customers = pd.read_csv("customers.csv")"""],
        """customers = customers.set_index("id")  #<
customers.loc[105]""",
        fixed_target="""customers = customers.set_index("customer_id")
customers.loc[105]""",
        files={"customers.csv": CUSTOMERS_CSV},
    ),
    Case(
        "pandas_11_rename_not_assigned",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "rename without inplace or assignment returned a new frame; houses still has no "
        "column size.",
        [IMPORTS, HOUSES, """houses.rename(columns={"sqft": "size"})"""],
        """houses["price_per_size"] = houses["price"] / houses["size"]  #<""",
        fixed_cells=[IMPORTS, HOUSES, """houses = houses.rename(columns={"sqft": "size"})"""],
    ),
    Case(
        "pandas_12_pivot_table_missing_value_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "pivot_table values='sales' names a column the frame does not have.",
        [IMPORTS, SALES],
        """table = sales.pivot_table(index="region", columns="product", values="sales", aggfunc="sum")  #<
table.round(0)""",
        fixed_target="""table = sales.pivot_table(index="region", columns="product", values="revenue", aggfunc="sum")
table.round(0)""",
    ),
    Case(
        "pandas_13_loc_missing_index_label",
        "pandas",
        "pandas-missing-label",
        "KeyError",
        "customer_id runs from 100 to 159; label 7 is not in the index.",
        [
            IMPORTS,
            """customers = pd.read_csv("customers.csv", index_col="customer_id")""",
        ],
        """customer = customers.loc[7]  #<
print(customer["name"], customer["city"])""",
        fixed_target="""customer = customers.iloc[7]
print(customer["name"], customer["city"])""",
        files={"customers.csv": CUSTOMERS_CSV},
    ),
    Case(
        "pandas_14_iloc_out_of_bounds",
        "pandas",
        "pandas-iloc-out-of-bounds",
        "IndexError",
        "sales has 240 rows; position 240 is out of bounds.",
        [IMPORTS, SALES],
        """first = sales.iloc[0]
last = sales.iloc[len(sales)]  #<
print(first["order_date"], "->", last["order_date"])""",
        fixed_target="""first = sales.iloc[0]
last = sales.iloc[len(sales) - 1]
print(first["order_date"], "->", last["order_date"])""",
    ),
    Case(
        "pandas_15_str_accessor_on_numbers",
        "pandas",
        "pandas-accessor-dtype",
        "AttributeError",
        "units is an integer column; .str only works on strings.",
        [IMPORTS, SALES],
        """sales["units_label"] = sales["units"].str.zfill(3)  #<
sales["units_label"].head()""",
        fixed_target="""sales["units_label"] = sales["units"].astype(str).str.zfill(3)
sales["units_label"].head()""",
    ),
    Case(
        "pandas_16_dt_accessor_on_strings",
        "pandas",
        "pandas-accessor-dtype",
        "AttributeError",
        "order_date holds strings (YYYY-MM-DD), so the .dt accessor is not available.",
        [IMPORTS, SALES],
        """sales["weekday"] = sales["order_date"].dt.day_name()  #<
sales.groupby("weekday")["revenue"].mean()""",
        fixed_target="""sales["weekday"] = pd.to_datetime(sales["order_date"]).dt.day_name()
sales.groupby("weekday")["revenue"].mean()""",
    ),
    Case(
        "pandas_17_cat_accessor_on_object",
        "pandas",
        "pandas-accessor-dtype",
        "AttributeError",
        "Embarked is an object column; .cat needs a category dtype.",
        [IMPORTS, TITANIC],
        """titanic["embarked_code"] = titanic["Embarked"].cat.codes  #<""",
        fixed_target="""titanic["embarked_code"] = titanic["Embarked"].astype("category").cat.codes""",
    ),
    Case(
        "pandas_18_astype_int_with_nan",
        "pandas",
        "pandas-invalid-cast",
        "IntCastingNaNError",
        "Age has 60 missing values, which cannot be cast to int.",
        [IMPORTS, TITANIC],
        """titanic["Age"] = titanic["Age"].astype(int)  #<
titanic["Age"].describe()""",
        fixed_target="""titanic["Age"] = titanic["Age"].fillna(titanic["Age"].median()).astype(int)
titanic["Age"].describe()""",
    ),
    Case(
        "pandas_19_astype_int_thousands_separator",
        "pandas",
        "pandas-invalid-cast",
        "ValueError",
        "The population column holds strings with thousands separators such as '12,400'.",
        [
            IMPORTS,
            """cities = pd.DataFrame({
    "city": ["Lyon", "Paris", "Nice", "Lille", "Nantes"],
    "population": ["522,250", "2,102,650", "342,669", "236,710", "320,732"],
    "area_km2": [47.87, 105.4, 71.92, 34.51, 65.19],
})""",
        ],
        """cities["population"] = cities["population"].astype(int)  #<
cities["density"] = cities["population"] / cities["area_km2"]""",
        fixed_target="""cities["population"] = cities["population"].str.replace(",", "").astype(int)
cities["density"] = cities["population"] / cities["area_km2"]""",
    ),
    Case(
        "pandas_20_to_numeric_currency",
        "pandas",
        "pandas-invalid-cast",
        "ValueError",
        "total_spend holds strings such as '$1,137.07' that to_numeric cannot parse.",
        [IMPORTS, """customers = pd.read_csv("customers.csv")"""],
        """customers["total_spend"] = pd.to_numeric(customers["total_spend"])  #<
customers.groupby("city")["total_spend"].mean()""",
        fixed_target="""customers["total_spend"] = pd.to_numeric(
    customers["total_spend"].str.replace(r"[$,]", "", regex=True)
)
customers.groupby("city")["total_spend"].mean()""",
        files={"customers.csv": CUSTOMERS_CSV},
    ),
    Case(
        "pandas_21_concat_not_a_list",
        "pandas",
        "python-call-signature",
        "TypeError",
        "pd.concat takes one iterable of frames; the two frames were passed as two arguments.",
        [
            IMPORTS,
            SALES,
            """q1 = sales[sales["order_date"] < "2023-04-01"]
q2 = sales[(sales["order_date"] >= "2023-04-01") & (sales["order_date"] < "2023-07-01")]""",
        ],
        """h1 = pd.concat(q1, q2)  #<
h1.shape""",
        fixed_target="""h1 = pd.concat([q1, q2])
h1.shape""",
    ),
    Case(
        "pandas_22_join_overlapping_columns",
        "pandas",
        "pandas-join-overlap",
        "ValueError",
        "Both frames have a revenue column and join got no suffix.",
        [
            IMPORTS,
            SALES,
            """by_region = sales.groupby("region")[["units", "revenue"]].sum()
last_year = pd.DataFrame(
    {"revenue": [41_000.0, 39_500.0, 52_300.0, 30_100.0]},
    index=["east", "north", "south", "west"],
)""",
        ],
        """comparison = by_region.join(last_year)  #<
comparison""",
        fixed_target="""comparison = by_region.join(last_year, rsuffix="_last_year")
comparison""",
    ),
    Case(
        "pandas_23_groupby_agg_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "agg asks for a discount column that does not exist.",
        [IMPORTS, SALES],
        """stats = sales.groupby("product").agg({"units": "sum", "discount": "mean"})  #<
stats""",
        fixed_target="""stats = sales.groupby("product").agg({"units": "sum", "unit_price": "mean"})
stats""",
    ),
    Case(
        "pandas_24_groupby_select_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The grouped column is misspelled (revnue).",
        [IMPORTS, SALES],
        """for region in ["north", "south"]:
    subset = sales[sales["region"] == region]
    monthly = subset.groupby(subset["order_date"].str[:7])["revnue"].sum()  #<
    print(region, monthly.max())""",
        fixed_target="""for region in ["north", "south"]:
    subset = sales[sales["region"] == region]
    monthly = subset.groupby(subset["order_date"].str[:7])["revenue"].sum()
    print(region, monthly.max())""",
    ),
    Case(
        "pandas_25_drop_index_label_missing",
        "pandas",
        "pandas-missing-label",
        "KeyError",
        "The outlier label 500 is not in the 300-row index.",
        [IMPORTS, HOUSES],
        """outliers = [12, 87, 500]
houses = houses.drop(index=outliers)  #<
len(houses)""",
        fixed_target="""outliers = [12, 87, 250]
houses = houses.drop(index=outliers)
len(houses)""",
    ),
    Case(
        "pandas_26_to_datetime_wrong_format",
        "pandas",
        "pandas-invalid-cast",
        "ValueError",
        "The dates are ISO (2023-01-05) but the format says day/month/year.",
        [IMPORTS, SALES],
        """sales["order_date"] = pd.to_datetime(sales["order_date"], format="%d/%m/%Y")  #<
sales["order_date"].dt.month.value_counts().sort_index()""",
        fixed_target="""sales["order_date"] = pd.to_datetime(sales["order_date"], format="%Y-%m-%d")
sales["order_date"].dt.month.value_counts().sort_index()""",
    ),
    Case(
        "pandas_27_loc_column_list_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "One of the listed columns (embarked) differs in case from the real Embarked.",
        [IMPORTS, TITANIC],
        """women = titanic.loc[titanic["Sex"] == "female", ["Pclass", "Fare", "embarked"]]  #<
women.groupby("Pclass").mean(numeric_only=True)""",
        fixed_target="""women = titanic.loc[titanic["Sex"] == "female", ["Pclass", "Fare", "Embarked"]]
women.groupby("Pclass").mean(numeric_only=True)""",
    ),
    Case(
        "pandas_28_feature_function_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "add_features reads year_built, which the houses frame does not have (it has age); "
        "the KeyError is raised inside the function the cell defines.",
        [IMPORTS, HOUSES],
        """def add_features(frame):
    frame = frame.copy()
    frame["price_per_sqft"] = frame["price"] / frame["sqft"]
    frame["is_new"] = frame["year_built"] > 2015  #<
    return frame

enriched = add_features(houses)  #<call
enriched[["price_per_sqft", "is_new"]].describe()""",
        fixed_target="""def add_features(frame):
    frame = frame.copy()
    frame["price_per_sqft"] = frame["price"] / frame["sqft"]
    frame["is_new"] = frame["age"] < 10
    return frame

enriched = add_features(houses)
enriched[["price_per_sqft", "is_new"]].describe()""",
    ),
]
