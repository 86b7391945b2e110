// The `main` of the scratch crate that tests/compile.rs builds: it follows
// the generated modules (notes, www, kitchen_sink), uses every generated
// function except `notes::list` (which must draw the only warning), and checks
// the JSON each call sends and the values it gets back.

use sausage_plugin::__private::serde_json::json;
use sausage_plugin::__private::{answer, block_on, take_calls, Recorded};

fn one_call() -> Recorded {
    let mut calls = take_calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    calls.remove(0)
}

async fn spec_example() -> sausage_plugin::Result<u64> {
    let added = notes::add(notes::AddParams {
        text: "milk".into(),
    })
    .await?;
    eprintln!("{} notes", added.count);
    let pid = www::start(www::StartParams { port: 8080 }).detach().await?;
    let control = www::control::connect(&format!("/proc/{pid}/control")).await?;
    control.stats().await
}

async fn run() {
    answer(json!({"count": 1}));
    answer(json!("www-0197"));
    answer(json!(42));
    assert_eq!(spec_example().await.unwrap(), 42);
    let calls = take_calls();
    assert_eq!(calls[0].method, "notes.add");
    assert_eq!(calls[0].params, json!({"text": "milk"}));
    assert_eq!(calls[1].method, "www.start");
    assert_eq!(calls[1].params, json!({"port": 8080}));
    assert!(calls[1].detached);
    assert_eq!(calls[2].method, "stats");
    assert_eq!(calls[2].params, json!({}));
    assert_eq!(
        calls[2].endpoint,
        Some(("/proc/www-0197/control".into(), "control".into()))
    );

    let control = www::control::connect("/proc/www-0197/control")
        .await
        .unwrap();
    answer(json!(null));
    control.stop().on_notify(|_, _| {}).await.unwrap();
    assert_eq!(one_call().method, "stop");

    use kitchen_sink::*;
    answer(json!({
        "items": [{
            "id": "b1", "type": "e-book", "price": 9.5, "dimensions": [210, 297],
            "shelf": {"room": "A", "level": -2, "aisle": 70000},
            "meta": {"a": "x"}, "extra": [1, 2]
        }],
        "total": 1,
        "facets": {"novel": 3},
        "added-later": "unknown result fields are ignored"
    }));
    let found = search(SearchParams {
        query: "dune".into(),
        r#type: Some(Kind::EBook),
        maxItems: None,
        content_type: SearchParamsContentType::TextPlain,
        self_: Some(true),
        _2fa: None,
    })
    .await
    .unwrap();
    let sent = one_call();
    assert_eq!(sent.method, "kitchen-sink.search");
    assert_eq!(
        sent.params,
        json!({"query": "dune", "type": "e-book", "content-type": "text/plain", "self": true})
    );
    let item = &found.items[0];
    assert_eq!(item.r#type, Kind::EBook);
    assert_eq!(item.dimensions, Some((210, 297)));
    assert_eq!(item.shelf.as_ref().unwrap().level, -2i8);
    assert_eq!(item.shelf.as_ref().unwrap().aisle, Some(70000u32));
    assert_eq!(item.extra, Some(json!([1, 2])));
    assert_eq!(found.facets.as_ref().unwrap()["novel"], 3u64);
    assert_eq!(found.total, 1u32);

    answer(
        json!({"name": "root", "children": [{"name": "leaf", "children": [], "parent": {"name": "root", "children": []}}]}),
    );
    let root = tree(TreeParams::default()).await.unwrap();
    assert_eq!(one_call().params, json!({}));
    assert_eq!(root.children[0].parent.as_ref().unwrap().name, "root");
    assert_eq!(root.see_also, None);
    answer(json!({"name": "a", "children": [], "see_also": {"name": "b", "children": []}}));
    let a = tree(TreeParams { depth: Some(1) }).await.unwrap();
    assert_eq!(one_call().params, json!({"depth": 1}));
    assert_eq!(a.see_also.unwrap().name, "b");

    answer(json!({"counters": {"hits": [1, 2]}}));
    assert_eq!(getStats().await.unwrap().counters["hits"], vec![1u64, 2]);
    assert_eq!(one_call().params, json!({}));

    answer(json!(true));
    #[allow(deprecated)]
    let same = r#match(Pair {
        left: "a".into(),
        right: "b".into(),
    })
    .await
    .unwrap();
    assert!(same);
    assert_eq!(one_call().params, json!({"left": "a", "right": "b"}));

    answer(json!({"anything": 1}));
    touch(TouchRequest { reason: None }).await.unwrap();
    assert_eq!(one_call().params, json!({}));

    answer(json!({"Group": [{"Circle": {"radius": 2.0}}]}));
    let shape = Shape::Group(vec![
        Shape::Circle(ShapeCircle { radius: 1.5 }),
        Shape::Line((Point { x: 1, y: 2 }, Point { x: -3, y: 4 })),
        Shape::Mirrored(Box::new(Shape::Dot)),
        Shape::Dot,
    ]);
    let replaced = draw(DrawParams {
        shape,
        color: DrawParamsColor::Red,
    })
    .await
    .unwrap();
    assert_eq!(
        replaced,
        Some(Shape::Group(vec![Shape::Circle(ShapeCircle {
            radius: 2.0
        })]))
    );
    assert_eq!(
        one_call().params,
        json!({
            "shape": {"Group": [
                {"Circle": {"radius": 1.5}},
                {"Line": [{"x": 1, "y": 2}, {"x": -3, "y": 4}]},
                {"Mirrored": "Dot"},
                "Dot"
            ]},
            "color": "red"
        })
    );
    answer(json!(null));
    assert_eq!(
        draw(DrawParams {
            shape: Shape::Dot,
            color: DrawParamsColor::Red
        })
        .await
        .unwrap(),
        None
    );
    take_calls();

    assert_eq!(
        sausage_plugin::__private::serde_json::from_str::<Kind>("\"Self\"").unwrap(),
        Kind::SelfValue
    );
    assert!(!NOTES_IMPORTS.is_empty());
}

const NOTES_IMPORTS: &str = notes::__IMPORTS;

fn main() {
    block_on(run());
    println!("generated clients ok");
}
